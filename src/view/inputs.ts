/**
 * What `blackbox view` was given, as runs: each argument is a cassette file or a folder of
 * them (its *.json files, in name order; JSON files that are not cassettes are skipped and
 * listed). A sweep's folder, or its sweep.json, adds the sweep's matrix (sweepData.ts) and
 * its parent run. A missing path, a file that is not a cassette, or a folder with no cassette is
 * an error that says what to pass instead.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { TraceLoadError } from "../errors.js";
import { loadTrace } from "../store/index.js";
import type { LoadedRun } from "./data.js";
import type { RunGroup, SweepMeta } from "./model.js";
import { sweepAt, sweepCassettes, sweepMeta } from "./sweepData.js";

export interface LoadedInputs {
  runs: LoadedRun[];
  groups: RunGroup[];
  skipped: { file: string; reason: string }[];
  sweeps: SweepMeta[];
}

/** A path as the user would type it from `cwd`: relative when it is under it. */
export function pathFrom(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/** The cassette files of a folder: its *.json files (not hidden ones), in name order. */
export function folderCassettes(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.startsWith(".") && e.name.toLowerCase().endsWith(".json"))
    .map((e) => e.name)
    .sort()
    .map((name) => join(folder, name));
}

function statOf(path: string, shown: string): import("node:fs").Stats {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TraceLoadError(
      code === "ENOENT"
        ? `${shown} does not exist. Pass a cassette file (e.g. runs/trip.json) or a folder of cassettes.`
        : `${shown} cannot be read (${(error as Error).message}). Check the path and its permissions.`,
      { file: shown },
    );
  }
}

/**
 * Loads every input. `allowEmpty`: a folder with no cassette yet is not an error (a live
 * folder that a recording will write into).
 */
export async function loadInputs(inputs: readonly string[], cwd: string, allowEmpty = false): Promise<LoadedInputs> {
  const runs: LoadedRun[] = [];
  const groups: RunGroup[] = [];
  const skipped: { file: string; reason: string }[] = [];
  const loaded = new Map<string, number>();
  const add = async (file: string): Promise<number> => {
    const trace = await loadTrace(file);
    runs.push({ trace, file: pathFrom(cwd, file), bytes: statSync(file).size });
    loaded.set(resolve(file), runs.length - 1);
    return runs.length - 1;
  };
  // a sweep's children and parent are loaded once, whichever input names them
  const addOnce = async (file: string): Promise<number> => loaded.get(resolve(file)) ?? add(file);
  const sweeps: NonNullable<ReturnType<typeof sweepAt>>[] = [];
  for (const input of inputs) {
    const path = resolve(cwd, input);
    const stat = statOf(path, input);
    const sweep = sweepAt(path);
    if (sweep) sweeps.push(sweep);
    if (!stat.isDirectory() && sweep) {
      const keys: number[] = [];
      for (const file of sweepCassettes(sweep.result)) keys.push(await addOnce(file));
      groups.push({ kind: "folder", path: input, runs: keys, lanes: null });
      continue;
    }
    if (!stat.isDirectory()) {
      groups.push({ kind: "file", path: input, runs: [await add(path)], lanes: null });
      continue;
    }
    const files = folderCassettes(path).filter((f) => resolve(f) !== sweep?.file);
    const keys: number[] = [];
    for (const file of files) {
      try {
        keys.push(await add(file));
      } catch (error) {
        if (!(error instanceof TraceLoadError)) throw error;
        skipped.push({ file: pathFrom(cwd, file), reason: error.message });
      }
    }
    if (keys.length === 0 && !allowEmpty) {
      const why =
        files.length === 0
          ? "it has no .json files"
          : `none of its ${files.length} .json file${files.length === 1 ? " is a cassette" : "s is a cassette"} (${skipped
              .slice(-files.length)
              .map((s) => s.reason)
              .slice(0, 2)
              .join(" ")})`;
      throw new TraceLoadError(
        `folder ${input} holds no cassette: ${why}. Pass a folder of recorded runs (blackbox record -o <folder>/run.json ...) or the cassette files themselves.`,
        { file: input },
      );
    }
    groups.push({ kind: "folder", path: input, runs: keys, lanes: null });
    const parent = sweep?.result.parent.cassette;
    if (parent && !loaded.has(resolve(parent)) && existsSync(parent))
      groups.push({ kind: "file", path: pathFrom(cwd, parent), runs: [await add(parent)], lanes: null });
  }
  const keyOf = (file: string): number | null => loaded.get(resolve(file)) ?? null;
  return {
    runs,
    groups,
    skipped,
    sweeps: sweeps.map((s) => sweepMeta(s.result, keyOf, (f) => pathFrom(cwd, f), s.file)),
  };
}
