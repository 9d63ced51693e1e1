/**
 * How fast `blackbox view`'s page opens and scrolls a big run, in headless Chromium
 * (Debian's /usr/bin/chromium through playwright-core). For cassettes of 1, 10 and 100 MB
 * (bench/view-cassette.mjs: a coding agent's long run), it builds the page once, then
 * opens it ROUNDS times in a fresh browser context and reports the medians of:
 *
 * - first paint: the first contentful paint (the timeline drawn from the small view data);
 * - interactive: when the page says so (its payloads readable and the step drawn);
 * - last step: from pressing End to the last step's payload drawn;
 * - search: typing a word found in one tool result half-way, to its hit listed;
 * - scroll: the timeline scrolled top to bottom in 40 jumps, each waiting two frames (33 ms
 *   at 60 Hz when nothing is in the way): the median and the worst jump, and the longest
 *   task (PerformanceObserver "longtask") while it scrolls.
 *
 *   npm run build && node bench/view-open.mjs            # 1, 10 and 100 MB
 *   BENCH_SIZES=100 BENCH_ROUNDS=5 node bench/view-open.mjs
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { writeView } from "../dist/view/index.js";
import { writeBigCassette } from "./view-cassette.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CACHE = join(ROOT, ".cache", "bench-view");
const SIZES = (process.env.BENCH_SIZES ?? "1,10,100").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${Math.round(x)} ms`;

mkdirSync(CACHE, { recursive: true });
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
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

const rows = [];
for (const mb of SIZES) {
  const cassette = join(CACHE, `run-${mb}mb.json`);
  const made = existsSync(cassette) ? null : writeBigCassette(cassette, mb);
  const t = performance.now();
  const page = join(CACHE, `run-${mb}mb.html`);
  const built = await writeView([cassette], page, { cwd: ROOT });
  const buildMs = performance.now() - t;
  const steps = built.data.runs[0].steps.length;
  const needleAt = made?.needleAt ?? null;
  const url = pathToFileURL(page).href;
  const r = { paint: [], ready: [], last: [], search: [], frame: [], worst: [], task: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.route("**/*", (route) =>
      route.request().url().split("#")[0] === url ? route.continue() : route.abort(),
    );
    const p = await context.newPage();
    await p.addInitScript(() => {
      window.__longest = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
      }).observe({ type: "longtask", buffered: true });
    });
    await p.goto(url, { waitUntil: "commit" });
    await p.waitForSelector("html[data-ready]", { state: "attached", timeout: 300_000 });
    const marks = await p.evaluate(() => ({
      paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
      ready: performance.getEntriesByName("blackbox-view-interactive")[0]?.startTime ?? NaN,
    }));
    r.paint.push(marks.paint);
    r.ready.push(marks.ready);

    // scrolling: jumps down the list, one frame each; long tasks counted from here on
    const scroll = await p.evaluate(async () => {
      window.__longest = 0;
      const list = document.querySelector("[data-testid=timeline]");
      const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
      const times = [];
      for (let i = 1; i <= 40; i++) {
        const t0 = performance.now();
        list.scrollTop = (list.scrollHeight - list.clientHeight) * (i / 40);
        await frame();
        await frame();
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      return { frame: times[20], worst: times[39], task: window.__longest };
    });
    r.frame.push(scroll.frame);
    r.worst.push(scroll.worst);
    r.task.push(scroll.task);

    const t1 = performance.now();
    await p.locator("[data-testid=timeline]").focus();
    await p.keyboard.press("End");
    await p.waitForSelector(`[data-testid=step-detail][data-step="${steps - 1}"]`, { timeout: 60_000 });
    r.last.push(performance.now() - t1);

    const t2 = performance.now();
    await p.getByTestId("search").fill("needle-in-the-haystack");
    await p.waitForSelector("[data-testid=search-hit]", { timeout: 60_000 });
    r.search.push(performance.now() - t2);
    if (needleAt !== null) {
      const at = await p.getByTestId("search-hit").first().getAttribute("data-step");
      if (Number(at) !== needleAt) throw new Error(`search found step ${at}, the needle is at ${needleAt}`);
    }
    await context.close();
  }
  rows.push({
    size: `${(statSync(cassette).size / 1e6).toFixed(1)} MB`,
    steps,
    page: `${(built.bytes / 1e6).toFixed(1)} MB`,
    build: ms(buildMs),
    paint: ms(median(r.paint)),
    interactive: ms(median(r.ready)),
    "last step": ms(median(r.last)),
    search: ms(median(r.search)),
    "jump: 2 frames": ms(median(r.frame)),
    "worst jump": ms(median(r.worst)),
    "longest task": ms(median(r.task)),
  });
  console.log(JSON.stringify(rows.at(-1)));
}
await browser.close();
console.log(`\nmedians of ${ROUNDS} opens each (Node ${process.version}, Chromium ${browser.version()})`);
console.table(rows);
