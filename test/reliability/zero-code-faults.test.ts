/**
 * The zero-code path's faults, as users run it: `blackbox record -o run.json -- node
 * agent.mjs` (test/reliability/zero-code: a plain SDK agent, its tool named in
 * blackbox.config.mjs) ended by an exit, a signal or a crash inside its tool, after
 * its run, or with SIGTERM to blackbox while a model call is in flight. Each leaves a
 * cassette verify accepts with the spec's run_failed reason, and the command's own
 * exit status comes back. SIGKILL leaves nothing (a killed process runs no code) and
 * no temp file.
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadTrace, verifyTrace } from "../../src/index.js";
import { ROOT, runProcess } from "../helpers/child.js";
import { anthropicMessage } from "../helpers/fakeProvider.js";

const BIN = join(ROOT, "bin", "blackbox.mjs");
const AGENT = join(ROOT, "test", "reliability", "zero-code");
const dir = mkdtempSync(join(tmpdir(), "bbx-zc-faults-"));

/** A provider whose n-th request per conversation gets a tool call, then a text; "hang" never answers the second. */
let server: Server;
let url: string;
let onHang: (() => void) | undefined;
beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const second = body.includes("tool_result");
      if (second && onHang) {
        onHang(); // stays in flight until the process ends
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify(
          second
            ? anthropicMessage({ text: "Sunny in Lisbon." })
            : anthropicMessage({ toolCalls: [{ name: "get_weather", input: { city: "Lisbon" } }] }),
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (!existsSync(join(ROOT, "dist", "register.js")))
    throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const env = (fault: string) => ({
  FAULT: fault,
  ANTHROPIC_BASE_URL: url,
  ANTHROPIC_API_KEY: "sk-ant-test-key-000000000000",
  OPENAI_API_KEY: undefined,
});
const inFlight = (exitCode: number) => ({
  event: "run_failed",
  status: "error",
  reason: "calls_in_flight",
  exitCode,
  inFlight: 1,
});
const failed = (message: string) => ({ event: "run_failed", status: "error", reason: "agent_error", message });

describe.concurrent("blackbox record -- node agent.mjs, ended by a fault", () => {
  const cases: Array<[string, number, string[], Record<string, unknown>]> = [
    ["exit-in-tool", 4, ["model_input", "model_output", "metadata"], inFlight(4)],
    ["SIGINT-in-tool", 130, ["model_input", "model_output", "metadata"], inFlight(130)],
    ["throw-in-tool", 1, ["model_input", "model_output", "metadata"], inFlight(1)],
    [
      "throw-after",
      1,
      ["model_input", "model_output", "tool_call", "tool_result", "model_input", "model_output", "metadata"],
      failed("the agent crashed after its run"),
    ],
    [
      "reject-after",
      1,
      ["model_input", "model_output", "tool_call", "tool_result", "model_input", "model_output", "metadata"],
      failed("nobody awaited this"),
    ],
    [
      "exit-after",
      3,
      ["model_input", "model_output", "tool_call", "tool_result", "model_input", "model_output", "metadata"],
      { event: "run_failed", status: "error", reason: "process_exit", exitCode: 3 },
    ],
  ];
  test.each(cases)("%s", async (fault, code, types, terminal) => {
    const out = join(dir, `${fault}.json`);
    const r = await runProcess(process.execPath, [BIN, "record", "-o", out, "--", process.execPath, "agent.mjs"], {
      cwd: AGENT,
      env: env(fault),
    });
    expect(r.code, r.stderr).toBe(code);
    const t = await loadTrace(out);
    expect(verifyTrace(t)).toEqual({ ok: true, problems: [] });
    expect(t.steps.map((s) => s.type)).toEqual(types);
    expect(t.steps.at(-1)!.payload).toEqual(terminal);
  });
});

test("SIGTERM to blackbox while a model call is in flight: calls_in_flight, exit 143", async () => {
  const out = join(dir, "sigterm-in-model.json");
  const child = spawn(process.execPath, [BIN, "record", "-o", out, "--", process.execPath, "agent.mjs"], {
    cwd: AGENT,
    env: { ...process.env, ...env("none"), OPENAI_API_KEY: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  onHang = () => child.kill("SIGTERM");
  const code = await new Promise<number | null>((resolve) =>
    child.on("close", (c, s) => resolve(c ?? (s ? 128 + 15 : null))),
  );
  onHang = undefined;
  expect(code, stderr).toBe(143);
  const t = await loadTrace(out);
  expect(verifyTrace(t).ok).toBe(true);
  expect(t.steps.map((s) => s.type)).toEqual(["model_input", "model_output", "tool_call", "tool_result", "metadata"]);
  expect(t.steps.at(-1)!.payload).toEqual(inFlight(143));
});

test("SIGKILL inside a tool: no cassette, no temp file, exit 137", async () => {
  const out = join(dir, "killed", "run.json");
  const r = await runProcess(process.execPath, [BIN, "record", "-o", out, "--", process.execPath, "agent.mjs"], {
    cwd: AGENT,
    env: env("SIGKILL-in-tool"),
  });
  expect(r.code).toBe(137);
  expect(r.stderr).toContain(
    `blackbox: no cassette was written to ${out}: the command was killed (exit code 137, signal 9)`,
  );
  expect(existsSync(out)).toBe(false);
  expect(existsSync(join(dir, "killed")) ? readdirSync(join(dir, "killed")) : []).toEqual([]);
});
