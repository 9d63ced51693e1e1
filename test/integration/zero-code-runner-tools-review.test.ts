/**
 * A runner tool object's own name is checked like a config name: one that looks like a
 * provider id is refused with the config's one line and exit 2 before the agent runs (it
 * was an uncaught SessionError naming bb.tool(), thrown mid-import, with a stack trace).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hookedNode, requireBuild, tempDir } from "./zeroCodeHelpers.js";

const tmp = tempDir();
beforeAll(() => requireBuild());
afterAll(() => tmp.cleanup());

const TOOL = (name: string) =>
  `{ type: "function", function: { name: ${JSON.stringify(name)}, parameters: {}, parse: JSON.parse, function: async () => "ok" } }`;

describe("a runner tool object whose own name looks like a provider id", () => {
  for (const kind of ["cjs", "mjs"] as const) {
    it(`is refused with one config line, exit 2, before the agent runs (${kind})`, async () => {
      const dir = join(tmp.dir, kind);
      mkdirSync(dir);
      const file = `tools.${kind}`;
      writeFileSync(join(dir, file), kind === "cjs" ? `exports.t1 = ${TOOL("call_abc123DEF456ghi789")};\n` : `export const t1 = ${TOOL("call_abc123DEF456ghi789")};\n`);
      writeFileSync(join(dir, "agent.mjs"), `import * as t from "./${file}";\nconsole.log("agent ran", Object.keys(t).length);\n`);
      writeFileSync(join(dir, "blackbox.config.mjs"), `export default { tools: [{ module: "./${file}", exports: ["t1"] }] };\n`);
      const r = await hookedNode(dir, ["agent.mjs"], { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(dir, "run.json") });
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(
        `blackbox: ${join(dir, "blackbox.config.mjs")}: tools[0]: tool name "call_abc123DEF456ghi789" (the tool object's own name) looks like a provider id (call_abc123DEF456ghi789), which a cassette must not contain; give it another name ({ module, export, name })\n`,
      );
      expect(r.code).toBe(2);
    });
  }
  it("is fine when the entry gives another name", async () => {
    const dir = join(tmp.dir, "named");
    mkdirSync(dir);
    writeFileSync(join(dir, "tools.cjs"), `exports.t1 = ${TOOL("call_abc123DEF456ghi789")};\n`);
    writeFileSync(join(dir, "agent.mjs"), `import t from "./tools.cjs";\nconsole.log("agent ran", typeof t.t1.function.function);\n`);
    writeFileSync(join(dir, "blackbox.config.mjs"), `export default { tools: [{ module: "./tools.cjs", export: "t1", name: "lookup" }] };\n`);
    const r = await hookedNode(dir, ["agent.mjs"], { BLACKBOX_MODE: "record", BLACKBOX_OUT: join(dir, "run.json") });
    expect(r.stdout).toBe("agent ran function\n");
    expect(r.code).toBe(0);
  });
});
