/**
 * `blackbox view` of a sweep, in headless Chromium with every request routed: the demo's
 * trip swept by the built CLI (2 tool results x 2 variants, graded by --verify), then the
 * page of its folder shows the matrix as a table whose cells open the child runs at their
 * fork points. Needs `npm run build` first.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { ViewData } from "../../src/view/model.js";
import { guardedPage, launchChromium, screenshot, viewerReady, type GuardedPage } from "../helpers/browser.js";
import { ROOT, runProcess } from "../helpers/child.js";

const BIN = join(ROOT, "bin", "blackbox.mjs");
let work: string;
let browser: Browser;
let main: GuardedPage;
const blackbox = (args: string[]) => runProcess(process.execPath, [BIN, ...args], { cwd: work });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "bb-sweep-view-"));
  expect((await blackbox(["demo", "--dir", "runs"])).code).toBe(0);
  const verify = 'test "$BLACKBOX_SWEEP_VARIANT" = empty';
  const s = await blackbox([
    "sweep",
    "runs/trip.json",
    "--variants",
    "empty",
    "--variants",
    "null",
    "--verify",
    verify,
    "-o",
    "sweep",
  ]);
  expect(s.code, s.stderr).toBe(1); // the null column fails --verify
  expect(s.stdout).toContain("2 tool results x 2 variants");
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function page(input: string, out: string) {
  const v = await blackbox(["view", input, "-o", out]);
  expect(v.code, v.stderr).toBe(0);
  // the four children and the parent, from outside the folder
  expect(v.stdout).toMatch(/^wrote \S+ \(5 runs, \d+ KB\)/);
  expect(v.stderr).toBe(""); // sweep.json is the sweep, not a skipped cassette
  const url = pathToFileURL(join(work, out)).href;
  main = await guardedPage(browser, (u) => u.split("#")[0] === url);
  await main.page.goto(url);
  await viewerReady(main.page);
  return JSON.parse((await main.page.locator("#bb-data").textContent())!) as ViewData;
}

test("the sweep folder: a table of tool results x variants whose cells open the children at their fork points", async () => {
  const data = await page("sweep", "page.html");
  const p = main.page;
  const table = p.locator("[data-testid=sweep]");
  await table.waitFor();
  expect(await table.locator("thead th").allTextContents()).toEqual(["Tool result", "empty", "null"]);
  const rows = table.locator("tbody tr");
  expect(await rows.count()).toBe(2);
  expect(await rows.nth(0).locator("th").textContent()).toMatch(/^step 3 get_weather\{"city":"Lisbon"\}/);
  expect(await rows.nth(1).locator("th").textContent()).toMatch(/^step 7 find_activities/);
  const cell = (at: number, variant: string) => table.locator(`td[data-at="${at}"][data-variant="${variant}"]`);
  expect(await cell(3, "empty").locator(".badge").allTextContents()).toEqual(["answered", "pass"]);
  expect(await cell(7, "null").locator(".badge").allTextContents()).toEqual(["answered", "fail"]);
  expect(await table.locator(".sweep-summary").textContent()).toContain(
    "4 children: 4 answered, 0 failed; graded: 2 passed, 2 failed",
  );
  await screenshot(p, "sweep");

  // a cell opens its child, at its fork point
  await cell(7, "null").locator("button").click();
  const child = data.runs.find((r) => r.file.endsWith("trip.at-7.null.json"))!;
  await p.waitForFunction((k) => location.hash === `#run-${k}-step-7`, child.key);
  expect(await p.locator("[data-testid=run-id]").textContent()).toBe(child.id);
  expect(await p.locator('[data-testid=timeline] [aria-selected="true"]').getAttribute("data-step")).toBe("7");
  expect(await p.locator("[data-testid=timeline] .fork-mark").count()).toBe(1);
  expect(main.stray).toEqual([]);
  expect(main.errors).toEqual([]);
  await main.context.close();
});

test("the sweep file itself gives the same table", async () => {
  const data = await page("sweep/sweep.json", "page2.html");
  expect(data.sweeps).toHaveLength(1);
  expect(data.sweeps[0]!.cells.map((c) => [c.at, c.variant, c.run !== null])).toEqual([
    [3, "empty", true],
    [3, "null", true],
    [7, "empty", true],
    [7, "null", true],
  ]);
  expect(await main.page.locator("[data-testid=sweep] td button").count()).toBe(4);
  expect(main.stray).toEqual([]);
  await main.context.close();
});
