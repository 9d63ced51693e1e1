// The agent's tool; FAULT makes it end the process while it runs (a call in flight).
export async function get_weather({ city }) {
  const fault = process.env.FAULT;
  if (fault === "exit-in-tool") process.exit(4);
  if (fault === "SIGINT-in-tool") process.kill(process.pid, "SIGINT");
  if (fault === "SIGKILL-in-tool") process.kill(process.pid, "SIGKILL");
  if (fault === "throw-in-tool")
    setTimeout(() => {
      throw new Error("the tool's timer crashed");
    }, 0);
  if (fault?.endsWith("-in-tool")) await new Promise((r) => setTimeout(r, 5000));
  return { city, forecast: "sunny" };
}
