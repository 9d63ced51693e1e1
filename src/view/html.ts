/**
 * The page: one HTML file holding the viewer's script and style (bundled at build time,
 * ui/), the view data (model.ts) and each run's payloads, one JSON text a line. Nothing
 * in it refers to the network: no URL in any src or href, system fonts, and a Content
 * Security Policy that lets the page load nothing (a served page may reach its own
 * server's event stream, to reload on a change). Payload lines are parsed only when the
 * page shows them, so a big run opens without parsing every step first.
 */
import { createHash } from "node:crypto";
import { DATA_ELEMENT_ID, payloadElementId, type ViewData } from "./model.js";

export interface UiBundle {
  js: string;
  css: string;
}

/**
 * JSON text safe inside a script element: `<` only occurs inside JSON strings, where
 * \u003c means the same, so no `</script` or `<!--` can end or bend the element.
 */
export function scriptSafeJson(text: string): string {
  return text.replace(/</g, "\\u003c");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;"));
}

const sha256 = (text: string): string => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

function pageTitle(data: ViewData): string {
  if (data.runs.length === 1) return `${data.runs[0]!.id} · Blackbox`;
  if (data.runs.length === 0) return "Blackbox";
  return `${data.runs.length} runs · Blackbox`;
}

/** The page as chunks of text (a 100 MB run is written without one 100 MB concatenation). */
export function renderHtml(data: ViewData, payloads: readonly (readonly string[])[], ui: UiBundle): string[] {
  for (const part of [ui.js, ui.css]) {
    if (/<\/(script|style)/i.test(part)) throw new Error("the viewer bundle holds a closing script or style tag");
  }
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(ui.js)}`,
    `style-src ${sha256(ui.css)}`,
    "img-src data:",
    `connect-src ${data.live ? "'self'" : "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  const chunks: string[] = [
    "<!doctype html>\n",
    '<html lang="en">\n<head>\n<meta charset="utf-8">\n',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">\n`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
    '<meta name="color-scheme" content="light dark">\n',
    // a served page would have its browser ask the server for /favicon.ico
    ...(data.live ? ['<link rel="icon" href="data:,">\n'] : []),
    `<meta name="generator" content="blackbox ${escapeHtml(data.blackbox)}">\n`,
    `<title>${escapeHtml(pageTitle(data))}</title>\n`,
    `<style>${ui.css}</style>\n`,
    "</head>\n<body>\n",
    '<div id="app"><noscript>This page is the Blackbox viewer: it needs JavaScript.</noscript></div>\n',
    `<script type="application/json" id="${DATA_ELEMENT_ID}">${scriptSafeJson(JSON.stringify(data))}</script>\n`,
    `<script>${ui.js}</script>\n`,
  ];
  payloads.forEach((lines, key) => {
    chunks.push(`<script type="application/x-ndjson" id="${payloadElementId(key)}">`);
    // a big run as a few large chunks, not one chunk a step
    let batch: string[] = [];
    let size = 0;
    lines.forEach((line, i) => {
      batch.push(i === 0 ? scriptSafeJson(line) : `\n${scriptSafeJson(line)}`);
      size += line.length;
      if (size > 1 << 20) {
        chunks.push(batch.join(""));
        batch = [];
        size = 0;
      }
    });
    chunks.push(batch.join(""), "</script>\n");
  });
  chunks.push("</body>\n</html>\n");
  return chunks;
}
