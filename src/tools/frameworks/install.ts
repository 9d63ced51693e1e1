/**
 * Installing the framework targets (index.ts) for a session: the app's copy of each
 * framework found from the working folder and the main script's (nothing of it is loaded
 * here), its version checked, and each of its files given the line of source.ts as it
 * loads. CommonJS files get it in `Module.prototype._compile` (for those files only); the
 * ES module files are returned for the ESM roads (../esm.ts). A version outside a target's
 * range is one line on stderr naming the framework and version: its tools run, unrecorded.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import nodeModule, { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { AnyFn, SessionPort } from "../../session/types.js";
import { toolCallsOf } from "../../trace/payloads.js";
import { replaceProperty } from "../patch.js";
import { FRAMEWORK_TARGETS } from "./index.js";
import { insideFrameworkTool, runAsFrameworkTool } from "./scope.js";
import { appendedSource, FRAMEWORKS_REGISTRY, rebindExports, type FrameworkRegistry } from "./source.js";
import type { FrameworkHost, FrameworkTarget, PatchedFile } from "./types.js";
import { inRange } from "./versions.js";

type Compile = (content: unknown, filename: unknown, ...rest: unknown[]) => unknown;

export interface FrameworkFiles {
  /** ES module files by real path: the line to append. */
  readonly esm: Map<string, string>;
  undo(): void;
}

/** The folder of `name` as Node finds it from `dir`, with its version, if installed. */
function installed(dir: string, name: string): { dir: string; version: string } | undefined {
  const paths = createRequire(join(dir, "__blackbox__.js")).resolve.paths(name) ?? [];
  const pkg = paths.map((p) => join(p, name, "package.json")).find((f) => existsSync(f));
  if (!pkg) return undefined;
  try {
    const version = (JSON.parse(readFileSync(pkg, "utf8")) as { version?: unknown }).version;
    return { dir: realpathSync(dirname(pkg)), version: String(version ?? "") };
  } catch {
    return undefined;
  }
}

/** Whether the nearest package.json from `dir` (the app's) depends on `name` itself, not through another package. */
function dependsOn(dir: string, name: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    const file = join(d, "package.json");
    if (existsSync(file)) {
      try {
        const pkg = JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, unknown> | undefined>;
        return ["dependencies", "devDependencies", "optionalDependencies"].some((k) => pkg[k]?.[name] !== undefined);
      } catch {
        return false;
      }
    }
    if (dirname(d) === d) return false;
  }
}

function outOfRange(target: FrameworkTarget, version: string): string {
  return `blackbox: ${target.framework} (${target.package} ${version}) is not a version whose tool calls Blackbox captures (${target.versions}): its tools run and are not recorded; use a version in that range, or name the tools in blackbox.config (docs/tools.md)\n`;
}

export function installFrameworkTools(
  from: string[],
  session: Pick<SessionPort, "tool" | "fail" | "mcpLive" | "lastOutput">,
  targets: readonly FrameworkTarget[] = FRAMEWORK_TARGETS,
): FrameworkFiles {
  const entries: Array<{ target: FrameworkTarget; file: PatchedFile }> = [];
  const esm = new Map<string, string>();
  const cjs = new Map<string, string>();
  const seen = new Set<string>();
  for (const target of targets)
    for (const dir of new Set(from)) {
      const found = installed(dir, target.package);
      if (!found || seen.has(found.dir)) continue;
      seen.add(found.dir);
      if (!inRange(found.version, target.versions)) {
        // said where the version has the files (the feature, in a shape not read) and the app depends on it
        const hasFiles = target.files.some((f) => existsSync(join(found.dir, f.path)));
        if (hasFiles && [target.package, ...(target.usedAs ?? [])].some((p) => dependsOn(dir, p)))
          process.stderr.write(outOfRange(target, found.version));
        continue;
      }
      for (const file of target.files) {
        const path = join(found.dir, file.path);
        if (!existsSync(path)) continue;
        (file.format === "esm" ? esm : cjs).set(realpathSync(path), appendedSource(entries.length, file));
        entries.push({ target, file });
      }
    }
  if (entries.length === 0) return { esm, undo() {} };

  let live = true;
  const undos: Array<() => void> = [];
  const host: FrameworkHost = {
    // a framework call made inside another (an MCP callTool from a LangChain MCP adapter's tool) is part of
    // the outer call, which a replay answers whole
    record: (name, input, run) =>
      live && !insideFrameworkTool()
        ? runAsFrameworkTool(() => (session.tool(name, () => run()) as AnyFn)(input) as Promise<unknown>)
        : Promise.resolve().then(run),
    fail: (err) => {
      if (live) session.fail(err);
    },
    get mcpLive() {
      return session.mcpLive;
    },
    modelToolCalls: () => toolCallsOf(session.lastOutput ?? null),
  };
  const cannotPatch = (id: number, err: unknown) => {
    const entry = entries[id]!;
    const why = err instanceof Error ? err.message : String(err);
    process.stderr.write(
      `blackbox: ${entry.target.framework}: ${entry.file.path} could not be patched (${why}): its tools run and are not recorded; name them in blackbox.config (docs/tools.md)\n`,
    );
  };
  const registry: FrameworkRegistry = Object.assign(
    (id: number, names: Record<string, unknown>, exports: unknown) => {
      const entry = entries[id];
      if (!entry || !live) return undefined;
      try {
        for (const n of [...(entry.file.read ?? []), ...(entry.file.replace ?? [])])
          if (names[n] === undefined) throw new Error(`it has no "${n}"`);
        const patched = entry.target.patch(entry.file, names, host);
        undos.push(() => patched.undo());
        if (patched.replace) rebindExports(exports, names, patched.replace);
        return patched.replace;
      } catch (err) {
        cannotPatch(id, err);
        return undefined;
      }
    },
    { failed: (id: number, name: string, err: unknown) => cannotPatch(id, new Error(`"${name}": ${String(err)}`)) },
  );
  const globals = globalThis as unknown as Record<symbol, FrameworkRegistry | undefined>;
  const key = Symbol.for(FRAMEWORKS_REGISTRY);
  globals[key] = registry;

  const proto = nodeModule.prototype as unknown as { _compile: Compile };
  const original = proto._compile;
  const undoCompile =
    cjs.size === 0
      ? () => {}
      : replaceProperty(
          proto,
          "_compile",
          function (this: unknown, content: unknown, filename: unknown, ...rest: unknown[]) {
            const line = typeof filename === "string" && typeof content === "string" ? cjs.get(filename) : undefined;
            return original.call(this, line === undefined ? content : content + line, filename, ...rest);
          },
        );
  return {
    esm,
    undo() {
      if (!live) return;
      live = false;
      undoCompile();
      for (const u of undos.splice(0).reverse()) u();
      if (globals[key] === registry) delete globals[key];
    },
  };
}
