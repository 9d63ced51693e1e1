/**
 * `blackbox view` as a command, without a browser: what it writes and says, what it
 * refuses (a missing path, a file that is not a cassette, a folder with none), --open
 * through BLACKBOX_VIEW_OPENER, --serve's page, event stream and host check, and that no
 * other command (nor the register hook) loads the viewer. Needs `npm run build` first.
 */
import { spawn } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { init, parse } from "es-module-lexer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runProcess, type ChildResult } from "../helpers/child.js";

const BIN = join(ROOT, "bin", "blackbox.mjs");
const FIXTURES = join(ROOT, "test", "fixtures");
let work: string;

const blackbox = (args: string[], env: Record<string, string> = {}): Promise<ChildResult> =>
  runProcess(process.execPath, [BIN, ...args], { cwd: work, env });

beforeAll(() => {
  if (!existsSync(join(ROOT, "dist", "view", "ui-bundle.json")))
    throw new Error(
      "dist/view/ui-bundle.json is missing: run `npm run build` before this test (npm test builds first)",
    );
  work = mkdtempSync(join(tmpdir(), "bb-view-cli-"));
  mkdirSync(join(work, "runs"));
  for (const f of ["basic", "fork-child", "parallel"])
    copyFileSync(join(FIXTURES, `${f}.json`), join(work, "runs", `${f}.json`));
  writeFileSync(join(work, "runs", "notes.json"), '{"not": "a cassette"}');
  mkdirSync(join(work, "empty"));
  mkdirSync(join(work, "junk"));
  writeFileSync(join(work, "junk", "package.json"), '{"name": "x", "version": "1.0.0"}');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("writing the page", () => {
  it("writes view.html by default and says what it holds", async () => {
    const r = await blackbox(["view", "runs/basic.json"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^wrote view\.html \(1 run, \d+ KB\): open it in a browser\n$/);
    const html = readFileSync(join(work, "view.html"), "utf8");
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain("<title>basic · Blackbox</title>");
  });

  it("reads a folder's cassettes in name order and names the JSON files it skipped", async () => {
    const r = await blackbox(["view", "runs", "-o", "out/folder.html"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("wrote out/folder.html (3 runs,");
    expect(r.stderr).toMatch(/^blackbox: skipped runs\/notes\.json: cassette .*notes\.json .*\n$/);
    const html = readFileSync(join(work, "out", "folder.html"), "utf8");
    const data = JSON.parse(/<script type="application\/json" id="bb-data">(.*?)<\/script>/s.exec(html)![1]!);
    expect(data.runs.map((r: { file: string }) => r.file)).toEqual([
      "runs/basic.json",
      "runs/fork-child.json",
      "runs/parallel.json",
    ]);
    expect(data.groups).toEqual([{ kind: "folder", path: "runs", runs: [0, 1, 2], lanes: null }]);
  });

  it("refuses a missing path, saying what to pass", async () => {
    const r = await blackbox(["view", "nope.json"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "blackbox: nope.json does not exist. Pass a cassette file (e.g. runs/trip.json) or a folder of cassettes.\n" +
        "usage: blackbox view [options] [paths...]  (blackbox view --help: every option)\n",
    );
    expect(existsSync(join(work, "view.html"))).toBe(true); // the earlier page, untouched
  });

  it("refuses a file that is not a cassette, with what loadTrace found", async () => {
    const r = await blackbox(["view", "runs/notes.json", "-o", "x.html"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^blackbox: cassette .*notes\.json/);
    expect(existsSync(join(work, "x.html"))).toBe(false);
  });

  it("refuses a folder with no cassette, saying why", async () => {
    const empty = await blackbox(["view", "empty", "-o", "x.html"]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("blackbox: folder empty holds no cassette: it has no .json files.");
    const junk = await blackbox(["view", "junk", "-o", "x.html"]);
    expect(junk.code).toBe(2);
    expect(junk.stderr).toContain("blackbox: folder junk holds no cassette: none of its 1 .json file is a cassette");
    expect(junk.stderr).toContain('unsupported version "1.0.0"');
  });

  it("refuses no path, stdin, and options that do not go together", async () => {
    expect((await blackbox(["view"])).stderr).toContain("error: pass a cassette or a folder of cassettes");
    expect((await blackbox(["view", "-"])).stderr).toContain("not from stdin (-)");
    expect((await blackbox(["view", "runs", "--port", "8080"])).stderr).toContain("--port applies to --serve");
    const both = await blackbox(["view", "--serve", "runs", "-o", "a.html"]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("--serve writes no file");
  });

  it("--open starts the opener with the page (BLACKBOX_VIEW_OPENER stands in for xdg-open)", async () => {
    const opener = join(work, "opener.sh");
    const opened = join(work, "opened.txt");
    // written whole, then renamed: the opener runs detached, so the test may look while it writes
    writeFileSync(
      opener,
      `#!/bin/sh\nprintf '%s' "$*" > ${JSON.stringify(`${opened}.part`)} && mv ${JSON.stringify(`${opened}.part`)} ${JSON.stringify(opened)}\n`,
    );
    chmodSync(opener, 0o755);
    const r = await blackbox(["view", "runs/basic.json", "-o", "open.html", "--open"], {
      BLACKBOX_VIEW_OPENER: opener,
    });
    expect(r.code, r.stderr).toBe(0);
    for (let i = 0; i < 200 && !existsSync(opened); i++) await new Promise((d) => setTimeout(d, 50));
    expect(readFileSync(opened, "utf8")).toBe(resolve(work, "open.html"));
  });

  it("--open that cannot start says so and exits 1, the page written", async () => {
    const r = await blackbox(["view", "runs/basic.json", "-o", "open2.html", "--open"], {
      BLACKBOX_VIEW_OPENER: join(work, "no-such-opener"),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^blackbox: .*no-such-opener could not be started \(ENOENT\): open .*open2\.html in a browser yourself/,
    );
    expect(existsSync(join(work, "open2.html"))).toBe(true);
  });
});

function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; type: string }> {
  return new Promise((done, fail) => {
    const req = request(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (d) => (body += d));
      res.on("end", () => done({ status: res.statusCode!, body, type: String(res.headers["content-type"]) }));
    });
    req.on("error", fail);
    req.end();
  });
}

describe("--serve", () => {
  it("serves the folder's page, tells the event stream when a cassette changes, answers only to 127.0.0.1", async () => {
    mkdirSync(join(work, "live"));
    const server = spawn(process.execPath, [BIN, "view", "--serve", "live"], {
      cwd: work,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      let stdout = "";
      server.stdout!.on("data", (d) => (stdout += d));
      for (let i = 0; i < 200 && !/at http/.test(stdout); i++) await new Promise((d) => setTimeout(d, 50));
      const url = /at (http:\/\/127\.0\.0\.1:(\d+)\/)/.exec(stdout)![1]!;
      const empty = await get(url);
      expect(empty.status).toBe(200);
      expect(empty.type).toBe("text/html; charset=utf-8");
      expect(empty.body).toContain('"live":true');
      expect(empty.body).toContain("connect-src 'self'");
      expect((await get(url, { host: "evil.example" })).status).toBe(421);
      expect((await get(`${url}nothing`)).status).toBe(404);

      // the event stream: a hello, then a change when a cassette is written
      const events = await new Promise<string>((done, fail) => {
        const req = request(`${url}events`, (res) => {
          let text = "";
          res.setEncoding("utf8").on("data", (d: string) => {
            text += d;
            if (text.includes("event: hello") && !text.includes("event: change"))
              copyFileSync(join(FIXTURES, "basic.json"), join(work, "live", "basic.json"));
            if (text.includes("event: change")) {
              req.destroy();
              done(text);
            }
          });
        });
        req.on("error", (e) => ((e as NodeJS.ErrnoException).code === "ECONNRESET" ? undefined : fail(e)));
        req.end();
      });
      expect(events).toMatch(/^retry: 1000\nevent: hello\ndata: 0\n\n(.|\n)*event: change\ndata: 1\n\n/);
      const page = await get(url);
      expect(page.body).toContain("<title>basic · Blackbox</title>");
    } finally {
      server.kill("SIGTERM");
      await new Promise((d) => server.once("exit", d));
    }
    expect(server.exitCode).toBe(0);
  });

  it("refuses a port in use, naming it", async () => {
    const { createServer } = await import("node:net");
    const taken = createServer().listen(0, "127.0.0.1");
    await new Promise((d) => taken.once("listening", d));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = await blackbox(["view", "--serve", "runs", "--port", String(port)]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `blackbox: port ${port} on 127.0.0.1 is in use. Pick another with --port, or --port 0 for any free one.\n`,
      );
    } finally {
      taken.close();
    }
  });
});

describe("loading", () => {
  /** Every module a module imports statically, transitively, within dist/. */
  async function staticGraph(entry: string): Promise<Set<string>> {
    await init;
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const [imports, exports] = parse(readFileSync(file, "utf8"));
      const specifiers = [
        ...imports.map((i) => (i.type === "static" || i.type === "reexport-star" ? i.specifier : null)),
        ...exports.map((e) => ("from" in e ? e.from : null)), // export { x } from "./y.js"
      ];
      for (const s of specifiers) if (s?.startsWith(".")) visit(resolve(dirname(file), s)); // dynamic ones and packages left out
    };
    visit(entry);
    return seen;
  }

  it("no other command, and not the register hook, loads the viewer: the view command imports it when it runs", async () => {
    const dist = join(ROOT, "dist");
    for (const entry of ["cli/main.js", "register.js", "index.js"]) {
      const graph = [...(await staticGraph(join(dist, entry)))];
      expect(graph.length, entry).toBeGreaterThan(10); // the walk follows imports and re-exports
      expect(
        graph.filter((f) => f.startsWith(join(dist, "view"))),
        entry,
      ).toEqual([]);
    }
    // the register hook as it loads: its esbuild bundle (register.mjs prefers it)
    const hook = [...(await staticGraph(join(dist, "register-bundle", "register.js")))];
    expect(hook.filter((f) => f.includes(`${join(dist, "view")}/`))).toEqual([]);
    expect(await staticGraph(join(dist, "index.js"))).toContain(join(dist, "trace", "verify.js")); // a re-export
    expect(await staticGraph(join(dist, "cli", "main.js"))).toContain(join(dist, "cli", "view.js"));
    expect(readFileSync(join(dist, "cli", "view.js"), "utf8")).toContain('await import("../view/index.js")');
  });
});
