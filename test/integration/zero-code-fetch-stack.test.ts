/**
 * The door goes in at start-up without loading Node's fetch stack (src/interception/dispatcher/fetchStack.ts):
 * on Node 20 that stack loads at the first touch of fetch, Response, Request, Headers or
 * FormData, and Node's own Agent is made then, below the door. Fresh hooked processes
 * (record mode, no config) against the fake provider and a second server on loopback.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ROOT, runProcess } from "../helpers/child.js";
import { anthropicMessage, startFakeProvider, type FakeProvider } from "../helpers/fakeProvider.js";
import { hookedNode, noCassetteNotice, readCassette, requireBuild, tempDir } from "./zeroCodeHelpers.js";

/** Node 20 defers its fetch stack behind lazy getters, and so does the door; Node 24 loads it at any look (then the door loads it). */
const defers =
  execFileSync(process.execPath, ["-p", '!!Object.getOwnPropertyDescriptor(globalThis, "Response").get'], {
    encoding: "utf8",
  }).trim() === "true";

const tmp = tempDir();
let fake: FakeProvider;
let other: Server;
let otherUrl = "";
beforeAll(async () => {
  requireBuild();
  fake = await startFakeProvider();
  other = createServer((req, res) => res.end(`other ${req.url}`));
  await new Promise<void>((r) => other.listen(0, "127.0.0.1", () => r()));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await fake.close();
  other.close();
  tmp.cleanup();
});

/** A new folder in the temp dir. */
function folder(name: string): string {
  const dir = join(tmp.dir, name);
  mkdirSync(dir);
  return dir;
}

const env = (out: string) => ({
  BLACKBOX_MODE: "record",
  BLACKBOX_OUT: out,
  ANTHROPIC_BASE_URL: fake.anthropicUrl,
  OTHER_URL: otherUrl,
});

/** Prints whether the door holds the global slot, what is below it, and whether undici 7 (the fallback) was loaded. */
const REPORT = `
import { createRequire } from "node:module";
export function report() {
  const door = globalThis[Symbol.for("undici.globalDispatcher.1")];
  const undici7 = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes("/node_modules/undici/"));
  return JSON.stringify({ door: door?.[Symbol.for("ardaulas.blackbox.dispatcher.v1")] === true, below: door?.previous?.constructor?.name, undici7 });
}
`;

test.runIf(defers)(
  "a hooked process that never fetches loads none of Node's fetch stack (nor crypto, nor canonicalize); the door is in place",
  async () => {
    const write = (name: string) =>
      `process.on("exit", () => require("fs").writeFileSync(${JSON.stringify(join(tmp.dir, name))}, process.moduleLoadList.join("\\n")));`;
    writeFileSync(join(tmp.dir, "bare.cjs"), write("bare.txt"));
    writeFileSync(join(tmp.dir, "hooked.cjs"), write("hooked.txt"));
    writeFileSync(
      join(tmp.dir, "idle.mjs"),
      'console.log(globalThis[Symbol.for("undici.globalDispatcher.1")]?.[Symbol.for("ardaulas.blackbox.dispatcher.v1")] === true);\n',
    );
    const bare = await runProcess(process.execPath, ["--require", "./bare.cjs", "idle.mjs"], { cwd: tmp.dir });
    const hooked = await hookedNode(
      tmp.dir,
      ["--require", "./hooked.cjs", "idle.mjs"],
      env(join(tmp.dir, "idle.json")),
    );
    expect([bare.stdout, hooked.stdout, hooked.stderr]).toEqual([
      "false\n",
      "true\n",
      noCassetteNotice(join(tmp.dir, "idle.json")),
    ]);
    const loaded = (name: string) => new Set(readFileSync(join(tmp.dir, name), "utf8").split("\n"));
    const before = loaded("bare.txt");
    const extra = [...loaded("hooked.txt")].filter((m) => !before.has(m));
    expect(extra.length).toBeGreaterThan(0); // the hook's own modules: else this test could not fail
    // nor a CommonJS package from ESM (canonicalize loads at the first hash: Node's CommonJS export lexer stays unloaded)
    expect(
      extra.filter((m) =>
        /^NativeModule (internal\/deps\/undici|internal\/deps\/cjs-module-lexer|http|https|tls|net|zlib|crypto)\b/.test(
          m,
        ),
      ),
    ).toEqual([]);
  },
);

describe.each(["fetch", "Response", "Request", "Headers", "FormData"])("the first touch is %s", (first) => {
  test("Node's own Agent is made below the door: provider calls are recorded, other requests pass on", async () => {
    const dir = folder(`touch-${first}`);
    writeFileSync(join(dir, "report.mjs"), REPORT);
    const touch =
      first === "fetch" ? "await fetch(process.env.OTHER_URL + '/first').then((r) => r.text())" : `typeof ${first}`;
    writeFileSync(
      join(dir, "app.mjs"),
      `import { report } from "./report.mjs";
import Anthropic from "@anthropic-ai/sdk";
const firstTouch = ${touch};
const other = await fetch(process.env.OTHER_URL + "/later").then((r) => r.text());
const reply = await new Anthropic({ apiKey: "sk-ant-fake-key-0123456789" }).messages.create({ model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] });
console.log(JSON.stringify({ firstTouch, other, text: reply.content[0].text }));
console.log(report());
`,
    );
    fake.enqueue({ json: anthropicMessage({ text: `hello after ${first}` }) });
    const out = join(dir, "out.json");
    const r = await hookedNode(dir, ["app.mjs"], env(out));
    expect(r.stderr).toBe("");
    const [app, report] = r.stdout
      .trim()
      .split("\n")
      .map((j) => JSON.parse(j));
    expect(app).toEqual({
      firstTouch: first === "fetch" ? "other /first" : "function",
      other: "other /later",
      text: `hello after ${first}`,
    });
    expect(report).toEqual({ door: true, below: "Agent", undici7: false });
    expect(readCassette(out).steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
  });
});

test("undici's own request and fetch before anything touches Node's fetch: through the door, Node's Agent below it", async () => {
  const dir = folder("undici-first");
  writeFileSync(join(dir, "report.mjs"), REPORT.replace('k.includes("/node_modules/undici/")', "false"));
  writeFileSync(
    join(dir, "app.mjs"),
    `import { report } from "./report.mjs";
import { Agent, fetch, request } from "undici";
const other = await request(process.env.OTHER_URL + "/via-request").then((r) => r.body.text());
const res = await fetch(process.env.ANTHROPIC_BASE_URL + "/v1/messages", {
  method: "POST",
  headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "sk-ant-fake-key-0123456789" },
  body: JSON.stringify({ model: "claude-haiku-4-5", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }),
});
const below = globalThis[Symbol.for("undici.globalDispatcher.1")].previous;
console.log(JSON.stringify({ other, text: (await res.json()).content[0].text, belowIsUndici7: below instanceof Agent }));
console.log(report());
`,
  );
  fake.enqueue({ json: anthropicMessage({ text: "hello undici" }) });
  const out = join(dir, "out.json");
  const r = await hookedNode(dir, ["app.mjs"], env(out));
  expect(r.stderr).toBe("");
  const [app, report] = r.stdout
    .trim()
    .split("\n")
    .map((j) => JSON.parse(j));
  expect(app).toEqual({ other: "other /via-request", text: "hello undici", belowIsUndici7: false });
  expect(report).toMatchObject({ door: true, below: "Agent" });
  expect(readCassette(out).steps.map((s) => s.type)).toEqual(["model_input", "model_output", "metadata"]);
});

test("the globals look as Node made them: names, lengths, descriptors, and a global the app replaces first", async () => {
  const dir = folder("globals");
  writeFileSync(
    join(dir, "app.mjs"),
    `const d = (k) => { const x = Object.getOwnPropertyDescriptor(globalThis, k); return [k, x.get ? "accessor" : typeof x.value, x.enumerable, x.configurable]; };
const before = ["fetch", "Response", "Request", "Headers", "FormData"].map(d);
globalThis.FormData = class MyFormData {};
const after = [d("Response"), typeof new Response("x").text, d("Response"), d("FormData"), FormData.name];
console.log(JSON.stringify([fetch.name, fetch.length, before, after]));
`,
  );
  const bare = await runProcess(process.execPath, ["app.mjs"], { cwd: dir });
  const hooked = await hookedNode(dir, ["app.mjs"], env(join(dir, "never.json")));
  expect(hooked.stderr).toBe(noCassetteNotice(join(dir, "never.json")));
  expect(bare.stderr).toBe("");
  expect(hooked.stdout).toBe(bare.stdout);
  expect(JSON.parse(bare.stdout)[3][4]).toBe("MyFormData");
});

test("the app wraps the door in its own dispatcher before the first fetch: requests go through, no loop", async () => {
  const dir = folder("app-wraps-door");
  writeFileSync(
    join(dir, "app.mjs"),
    `const slot = Symbol.for("undici.globalDispatcher.1");
const door = globalThis[slot];
let seen = 0;
const mine = { isMockActive: true, dispatch(opts, handler) { seen++; return door.dispatch(opts, handler); } };
globalThis[slot] = mine;
const text = await fetch(process.env.OTHER_URL + "/wrapped").then((r) => r.text());
console.log(JSON.stringify({ text, seen }));
`,
  );
  const r = await hookedNode(dir, ["app.mjs"], env(join(dir, "never.json")));
  expect(r.stderr).toBe(noCassetteNotice(join(dir, "never.json")));
  expect(JSON.parse(r.stdout)).toEqual({ text: "other /wrapped", seen: 1 });
});

test("fetch taken before its first call is still globalThis.fetch after it, and the other globals stay as bare Node has them", async () => {
  const dir = folder("identity");
  writeFileSync(
    join(dir, "app.mjs"),
    `const f = fetch;
await f(process.env.OTHER_URL + "/x").then((r) => r.text());
const kind = (k) => (Object.getOwnPropertyDescriptor(globalThis, k).get ? "accessor" : "value");
console.log(JSON.stringify([f === globalThis.fetch, ["FormData", "Headers", "Request", "Response"].map(kind)]));
`,
  );
  const bare = await runProcess(process.execPath, ["app.mjs"], { cwd: dir, env: { OTHER_URL: otherUrl } });
  const hooked = await hookedNode(dir, ["app.mjs"], env(join(dir, "never.json")));
  expect(hooked.stderr).toBe(noCassetteNotice(join(dir, "never.json")));
  expect(JSON.parse(bare.stdout)[0]).toBe(true);
  expect(hooked.stdout).toBe(bare.stdout);
});

test.runIf(defers)(
  "undo before the stack loaded: the globals and the empty slot as they were, and Node makes its Agent as usual",
  async () => {
    const dir = folder("undo");
    const stack = JSON.stringify(join(ROOT, "dist", "interception", "dispatcher", "fetchStack.js"));
    writeFileSync(
      join(dir, "undo.mjs"),
      `import { deferFetchStack } from ${stack};
const slot = Symbol.for("undici.globalDispatcher.1");
const d = (k) => JSON.stringify(Object.getOwnPropertyDescriptor(globalThis, k), (key, v) => (typeof v === "function" ? v.name : v));
const before = [d("Response"), d("fetch"), globalThis[slot]];
const door = { dispatch() { throw new Error("not used"); } };
const stack = deferFetchStack(door);
const during = [globalThis[slot] === door, d("Response") === before[0]];
stack.undo();
const after = [d("Response"), d("fetch"), globalThis[slot]];
void Response;
console.log(JSON.stringify({ during, same: JSON.stringify(after) === JSON.stringify(before), agent: globalThis[slot]?.constructor?.name }));
`,
    );
    const r = await runProcess(process.execPath, ["undo.mjs"], { cwd: dir });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({ during: [true, false], same: true, agent: "Agent" });
  },
);

test.runIf(!defers)(
  "where Node's fetch stack loads at any look at it, the door goes over Node's own Agent at once",
  async () => {
    const dir = folder("eager");
    writeFileSync(join(dir, "report.mjs"), REPORT);
    writeFileSync(join(dir, "app.mjs"), 'import { report } from "./report.mjs";\nconsole.log(report());\n');
    const r = await hookedNode(dir, ["app.mjs"], env(join(dir, "never.json")));
    expect(r.stderr).toBe(noCassetteNotice(join(dir, "never.json")));
    expect(JSON.parse(r.stdout)).toEqual({ door: true, below: "Agent", undici7: false });
  },
);
