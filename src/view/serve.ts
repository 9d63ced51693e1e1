/**
 * `blackbox view --serve`: the page for a live folder (or files) on 127.0.0.1. GET / builds
 * the page from what is on disk; GET /events is a server-sent event stream that says
 * `change` when a cassette there is written (fs.watch, debounced), and the page reloads.
 * Only requests naming this server (Host 127.0.0.1:port or localhost:port) are answered,
 * so another site cannot read the runs through a rebound DNS name.
 */
import { statSync, watch, type FSWatcher } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, resolve } from "node:path";
import { ViewError } from "./errors.js";
import { buildPage, type BuiltPage } from "./page.js";

export interface ServedView {
  url: string;
  port: number;
  /** Stops watching and serving. */
  close(): Promise<void>;
}

export interface ServeOptions {
  cwd: string;
  /** 0: any free port. */
  port: number;
  /** How long to wait after the last file event before telling the pages (ms). */
  debounceMs?: number;
  /** A page could not be built (its error is also shown to the browser). */
  onError?: (error: Error) => void;
}

const DEBOUNCE_MS = 150;

function folderOf(path: string): string {
  try {
    return statSync(path).isDirectory() ? path : dirname(path);
  } catch {
    throw new ViewError(`${path} does not exist. Pass the folder the cassettes are (or will be) written to.`);
  }
}

function errorPage(message: string): string {
  const text = message.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
  return `<!doctype html><html lang="en"><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><title>Blackbox</title><body><h1>The page could not be built</h1><pre>${text}</pre><p>Fix the file and reload.</p></body></html>`;
}

export async function serveView(inputs: readonly string[], o: ServeOptions): Promise<ServedView> {
  const targets = (inputs.length === 0 ? ["."] : inputs).map((i) => i);
  const folders = [...new Set(targets.map((t) => folderOf(resolve(o.cwd, t))))];
  let generation = 0;
  let page: { generation: number; built: Promise<BuiltPage> } | undefined;
  const clients = new Set<ServerResponse>();

  const current = (): Promise<BuiltPage> => {
    if (!page || page.generation !== generation) {
      page = { generation, built: buildPage(targets, { cwd: o.cwd, live: true }) };
    }
    return page.built;
  };

  let timer: NodeJS.Timeout | undefined;
  const changed = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      generation++;
      for (const res of clients) res.write(`event: change\ndata: ${generation}\n\n`);
    }, o.debounceMs ?? DEBOUNCE_MS);
  };
  let port = 0;
  const hostOk = (req: IncomingMessage): boolean =>
    req.headers.host === `127.0.0.1:${port}` || req.headers.host === `localhost:${port}`;

  const server = createServer((req, res) => {
    if (!hostOk(req)) {
      res.writeHead(421, { "content-type": "text/plain" }).end("this server answers to 127.0.0.1 only\n");
      return;
    }
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
      return;
    }
    if (path === "/events") {
      res.writeHead(200, {
        "content-type": "text/event-stream",
        "cache-control": "no-store",
        connection: "keep-alive",
      });
      res.write(`retry: 1000\nevent: hello\ndata: ${generation}\n\n`);
      clients.add(res);
      req.on("close", () => clients.delete(res));
      return;
    }
    if (path !== "/" && path !== "/index.html") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: the page is at /\n");
      return;
    }
    current().then(
      (built) => {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
        if (req.method === "HEAD") return void res.end();
        for (const chunk of built.chunks) res.write(chunk, "utf8");
        res.end();
      },
      (error: Error) => {
        page = undefined; // built again at the next request
        o.onError?.(error);
        res.writeHead(500, { "content-type": "text/html; charset=utf-8" }).end(errorPage(error.message));
      },
    );
  });
  // keep-alive comments, so proxies and browsers do not drop an idle stream
  const heartbeat = setInterval(() => {
    for (const res of clients) res.write(": still here\n\n");
  }, 20_000);
  heartbeat.unref();

  await new Promise<void>((resolveListen, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new ViewError(
          error.code === "EADDRINUSE"
            ? `port ${o.port} on 127.0.0.1 is in use. Pick another with --port, or --port 0 for any free one.`
            : `cannot serve on 127.0.0.1:${o.port} (${error.code ?? error.message}).`,
        ),
      ),
    );
    server.listen(o.port, "127.0.0.1", () => resolveListen());
  }).catch((error: unknown) => {
    clearInterval(heartbeat);
    throw error;
  });
  port = (server.address() as AddressInfo).port;
  // watched once serving: a refused port leaves nothing open that would keep the process alive
  const watchers: FSWatcher[] = folders.map((folder) =>
    watch(folder, { persistent: true }, (_event, name) => {
      // a cassette is written to a hidden temp file, then renamed to its name
      if (name === null || (name.toLowerCase().endsWith(".json") && !name.startsWith("."))) changed();
    }),
  );

  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    close: async () => {
      clearTimeout(timer);
      clearInterval(heartbeat);
      for (const w of watchers) w.close();
      for (const res of clients) res.end();
      clients.clear();
      const closed = new Promise<void>((r) => server.close(() => r()));
      server.closeAllConnections(); // idle keep-alive connections too
      await closed;
    },
  };
}
