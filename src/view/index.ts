/**
 * `blackbox view`: runs as one self-contained HTML page (writeView), or a live page served
 * on 127.0.0.1 that reloads when a cassette changes (serveView). Loaded only by the view
 * command (src/cli/view.ts imports it when the command runs), never by the register hook.
 */
export { buildPage, packageVersion, writeView, type BuiltPage, type PageOptions } from "./page.js";
export { openInBrowser, openerFor, type Opener } from "./open.js";
export { serveView, type ServedView, type ServeOptions } from "./serve.js";
export type { ViewData } from "./model.js";
