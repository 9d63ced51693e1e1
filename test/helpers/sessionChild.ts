/**
 * A child process that runs a test agent through a Blackbox session and prints
 * { answer, toolRuns, error } as JSON. Used to replay under `unshare -n`, and to end
 * a recording abruptly (exit codes, signals, uncaught errors).
 *
 *   node --import tsx test/helpers/sessionChild.ts '<json options>'
 */
import { blackbox, isBlackboxError } from "../../src/index.js";
import { kitByName } from "./agents.js";

interface ChildSpec {
  kit: string;
  session: Record<string, unknown>;
  task: string;
  baseURL?: string;
  extra?: Record<string, unknown>;
  stream?: boolean;
  /** What to do at the end instead of finish(): exit code, throw, signal. */
  end?: "finish" | { exit: number } | "throw" | "SIGINT" | "SIGTERM" | "hang-in-tool" | "finish-on-SIGTERM";
  /** Tool results by city (else the default weather). */
  weather?: Record<string, unknown>;
  /** Call a turn's tools last first. */
  reverse?: boolean;
}

const spec = JSON.parse(process.argv[2]!) as ChildSpec;
const kit = spec.kit === "gemini" ? (await import("./geminiAgent.js")).geminiKit : kitByName(spec.kit);
let toolRuns = 0;
const get_weather = async ({ city }: { city: string }) => {
  toolRuns++;
  if (spec.end === "hang-in-tool") {
    process.kill(process.pid, "SIGTERM");
    await new Promise((r) => setTimeout(r, 5000));
  }
  return spec.weather?.[city] ?? { city, forecast: city === "Lisbon" ? "sunny" : "rain" };
};

const bb = blackbox(spec.session as never);
const client = kit.client(bb.fetch, spec.baseURL ?? "https://unreachable.invalid/v1");
let answer: string | undefined;
let error: string | undefined;
try {
  answer = await kit.run(client, bb.tools({ get_weather }), {
    task: spec.task,
    extra: spec.extra,
    stream: spec.stream,
    reverse: spec.reverse,
  });
} catch (err) {
  error = `${isBlackboxError(err) ? "[blackbox-error] " : ""}${(err as Error).message}`;
}
const end = spec.end ?? "finish";
if (end === "finish") {
  try {
    await bb.finish();
  } catch (err) {
    error = `${error ? error + " | " : ""}finish: ${(err as Error).message}`;
  }
}
process.stdout.write(JSON.stringify({ answer, toolRuns, error }) + "\n");
if (typeof end === "object") process.exit(end.exit);
if (end === "throw") throw new Error("the agent crashed");
if (end === "finish-on-SIGTERM") {
  // a server's graceful shutdown: its own handler finishes the session, then exits 0
  process.on("SIGTERM", () => {
    bb.finish({ result: "shut down" })
      .then(
        () => process.stdout.write("finished\n"),
        (err: Error) => process.stdout.write(`finish: ${err.message}\n`),
      )
      .finally(() => process.exit(0));
  });
  process.kill(process.pid, "SIGTERM");
  await new Promise((r) => setTimeout(r, 5000));
}
if (end === "SIGINT" || end === "SIGTERM") {
  process.kill(process.pid, end);
  await new Promise((r) => setTimeout(r, 5000));
}
