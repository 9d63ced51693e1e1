/**
 * A recording agent that ends badly on purpose, as a child process. It serves its own
 * provider (a local server: the first request gets a tool call, the second gets a text
 * reply, or hangs when the fault needs a model call in flight), so it needs nothing
 * from the parent but the fault name and the output path.
 *
 *   node --import tsx test/reliability/faultChild.ts <fault> <out.json> [loop]
 *
 * "loop" makes it record runs back to back (each its own session, same out file, ~1 MB
 * so a write takes a while) until it is killed, printing "ready" first: the SIGKILL
 * test uses that to kill it at random moments, writes included.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { blackbox } from "../../src/index.js";
import { anthropicMessage } from "../helpers/fakeProvider.js";
import { anthropicKit } from "../helpers/agents.js";

const [fault = "none", out = "out.json", loop] = process.argv.slice(2);
const hangModel = fault === "SIGINT-in-model" || fault === "SIGTERM-in-model" || fault === "exit-in-model";

let served = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const n = served++ % 2;
    if (n === 1 && hangModel) {
      // the model call stays in flight; the fault ends the process meanwhile
      if (fault === "exit-in-model") setTimeout(() => process.exit(5), 50);
      else process.kill(process.pid, fault.startsWith("SIGINT") ? "SIGINT" : "SIGTERM");
      return;
    }
    const body =
      n === 0
        ? anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] })
        : anthropicMessage({ text: "Sunny in Lisbon." });
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  });
});
await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
server.unref();
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function get_weather({ city }: { city: string }): Promise<unknown> {
  switch (fault) {
    case "exit-in-tool":
      process.exit(4);
    // eslint-disable-next-line no-fallthrough
    case "throw-in-tool":
      setTimeout(() => {
        throw new Error("the tool's timer crashed");
      }, 0);
      await sleep(5000);
      break;
    case "reject-in-tool":
      void Promise.reject(new Error("a promise the tool forgot"));
      await sleep(5000);
      break;
  }
  return { city, forecast: "sunny", report: "x".repeat(loop ? 1_000_000 : 10) };
}

async function once(): Promise<void> {
  const bb = blackbox({ mode: "record", out });
  const client = anthropicKit.client(bb.fetch, baseURL);
  const answer = await anthropicKit.run(client, bb.tools({ get_weather }), { task: "Weather in Lisbon?" });
  if (!loop) process.stdout.write(`answer: ${answer}\n`);
  if (fault === "none") await bb.finish();
}

if (loop) {
  process.stdout.write("ready\n");
  for (;;) {
    await once();
    process.stdout.write("wrote\n");
  }
}
await once();
server.closeAllConnections(); // keep-alive sockets would hold the process open for seconds
if (fault === "unhandled-rejection") void Promise.reject(new Error("nobody awaited this"));
if (fault === "exit-after") process.exit(3);
