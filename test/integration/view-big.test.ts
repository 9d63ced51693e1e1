/**
 * A 100 MB cassette (bench/view-cassette.mjs: 20 000 steps of a coding agent's run) in
 * `blackbox view`'s page, in headless Chromium with every request routed: it opens within
 * a budget, draws only the rows in view, scrolls to the end, opens the last step and
 * finds a word in one tool result half-way. The budgets are generous (a loaded CI
 * machine); bench/view-open.mjs measures the real figures (bench/README.md).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { guardedPage, launchChromium, screenshot, viewerReady, type GuardedPage } from "../helpers/browser.js";
import { ROOT, runProcess } from "../helpers/child.js";
import { ROW_HEIGHT } from "../../src/view/ui/rowHeight.js";

/** Opening the 100 MB page, to interactive (measured: about 2-4 s; see bench/README.md). */
const OPEN_BUDGET_MS = 30_000;
/** One scroll jump, to the next frames drawn. */
const FRAME_BUDGET_MS = 2_000;

let work: string;
let browser: Browser;
let guarded: GuardedPage;
let meta: { bytes: number; steps: number; needleAt: number };
let url: string;
let openMs: number;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "bb-view-big-"));
  const made = await runProcess(process.execPath, [join(ROOT, "bench", "view-cassette.mjs"), "big.json", "100"], {
    cwd: work,
    timeoutMs: 180_000,
  });
  expect(made.code, made.stderr).toBe(0);
  meta = JSON.parse(made.stdout) as typeof meta;
  expect(meta.bytes).toBeGreaterThanOrEqual(100_000_000);
  const view = await runProcess(
    process.execPath,
    [join(ROOT, "bin", "blackbox.mjs"), "view", "big.json", "-o", "big.html"],
    {
      cwd: work,
      timeoutMs: 180_000,
    },
  );
  expect(view.code, view.stderr).toBe(0);
  url = pathToFileURL(join(work, "big.html")).href;
  browser = await launchChromium();
  guarded = await guardedPage(browser, (u) => u.split("#")[0] === url);
  const t = performance.now();
  await guarded.page.goto(url, { waitUntil: "commit" });
  await viewerReady(guarded.page, OPEN_BUDGET_MS * 2);
  openMs = performance.now() - t;
}, 420_000);

afterAll(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

it("opens a 100 MB run within the budget, drawing only the rows in view", async () => {
  expect(statSync(join(work, "big.json")).size).toBe(meta.bytes);
  expect(openMs).toBeLessThan(OPEN_BUDGET_MS);
  const { page } = guarded;
  const rows = await page.locator("[data-testid=timeline] [role=option]").count();
  expect(rows).toBeGreaterThan(10);
  expect(rows).toBeLessThan(100);
  const height = await page.locator("[data-testid=timeline] .spacer").evaluate((e) => e.getBoundingClientRect().height);
  expect(height).toBe(meta.steps * ROW_HEIGHT);
  await screenshot(page, "big-run");
});

it("scrolls to the end without freezing", async () => {
  const { page } = guarded;
  const longest = await page.evaluate(async () => {
    const list = document.querySelector<HTMLElement>("[data-testid=timeline]")!;
    const frame = () => new Promise<void>((done) => requestAnimationFrame(() => done()));
    let worst = 0;
    for (let i = 1; i <= 20; i++) {
      const t0 = performance.now();
      list.scrollTop = (list.scrollHeight - list.clientHeight) * (i / 20);
      await frame();
      await frame();
      worst = Math.max(worst, performance.now() - t0);
    }
    return worst;
  });
  expect(longest).toBeLessThan(FRAME_BUDGET_MS);
  const last = page.locator(`[data-testid=timeline] [data-step="${meta.steps - 1}"]`);
  expect(await last.count()).toBe(1);
  expect(await last.textContent()).toContain("run_completed");
});

it("opens the last step and finds a word in a tool result half-way", async () => {
  const { page } = guarded;
  await page.locator("[data-testid=timeline]").focus();
  await page.keyboard.press("End");
  await page.waitForSelector(`[data-testid=step-detail][data-step="${meta.steps - 1}"]`, { timeout: 10_000 });
  await page.getByTestId("search").fill("needle-in-the-haystack");
  const hit = page.getByTestId("search-hit").first();
  await hit.waitFor({ timeout: 10_000 });
  // the tool result, and the model inputs after it whose window still holds it
  expect(Number(await hit.getAttribute("data-step"))).toBe(meta.needleAt);
  await page.keyboard.press("Enter");
  await page.waitForSelector(`[data-testid=step-detail][data-step="${meta.needleAt}"]`, { timeout: 10_000 });
  expect(await page.getByTestId("step-detail").textContent()).toContain("needle-in-the-haystack");
});

it("made no request but its own file", () => {
  expect(guarded.stray).toEqual([]);
  expect(guarded.errors).toEqual([]);
});
