/**
 * Headless Chromium for the viewer's tests: Debian's /usr/bin/chromium driven by
 * playwright-core (never a downloaded browser), and a page whose every request is routed:
 * the test fails on any request but the ones it allows (the page's own file).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ROOT } from "./child.js";

export const CHROMIUM = "/usr/bin/chromium";
export const ARTIFACTS = join(ROOT, "test-artifacts", "view");

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the viewer's browser tests need Debian's chromium package (as root: apt-get install -y chromium; .ci/run installs it)`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

export interface GuardedPage {
  context: BrowserContext;
  page: Page;
  /** Requests made that were not allowed (each was aborted). */
  stray: string[];
  /** Console errors and uncaught exceptions of the page. */
  errors: string[];
}

/**
 * A page in a context of its own, with every request routed: `allow` says which URLs may
 * load (the page's file); any other is aborted and recorded in `stray`. The context is
 * offline too, so the browser has no network at all; a page served on loopback
 * (`--serve`) passes `{ offline: false }`.
 */
export async function guardedPage(
  browser: Browser,
  allow: (url: string) => boolean,
  options: Parameters<Browser["newContext"]>[0] = {},
): Promise<GuardedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, offline: true, ...options });
  const stray: string[] = [];
  const errors: string[] = [];
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (allow(url)) return route.continue();
    stray.push(url);
    return route.abort("blockedbyclient");
  });
  const page = await context.newPage();
  page.on("request", (r) => {
    if (!allow(r.url()) && !stray.includes(r.url())) stray.push(r.url());
  });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(String(e)));
  return { context, page, stray, errors };
}

/** Writes a screenshot to test-artifacts/view/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

/** Waits until the viewer says it is interactive (its payloads readable, the step drawn). */
export async function viewerReady(page: Page, timeout = 20_000): Promise<void> {
  await page.waitForSelector("html[data-ready]", { state: "attached", timeout });
}
