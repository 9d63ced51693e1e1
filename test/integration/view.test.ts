/**
 * `blackbox view` in a real browser: headless Chromium (Debian's package, driven by
 * playwright-core) opens the page the built CLI wrote, with every request routed: any
 * request but the page's own file fails the test. The fixtures: the demo's trip and two
 * forks of it (at step 3 and at step 7), a recorded agent's run with an error result, an
 * edited cassette, and a run whose payloads hold markup and URLs. Screenshots of each
 * view are written to test-artifacts/view/. Needs `npm run build` first (npm test does it).
 */
import { spawn, type ChildProcess } from "node:child_process";
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
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTrace, verifyTrace } from "../../src/index.js";
import { saveTraceSync } from "../../src/store/index.js";
import { TraceBuilder } from "../../src/trace/builder.js";
import type { ViewData } from "../../src/view/model.js";
import { stepDelay } from "../../src/view/ui/playback.js";
import { ROW_HEIGHT } from "../../src/view/ui/rowHeight.js";
import { guardedPage, launchChromium, screenshot, viewerReady, type GuardedPage } from "../helpers/browser.js";
import { ROOT, runProcess, type ChildResult } from "../helpers/child.js";

const BIN = join(ROOT, "bin", "blackbox.mjs");
const FIXTURES = join(ROOT, "test", "fixtures");

let work: string;
let pageFile: string;
let pageUrl: string;
let browser: Browser;
let main: GuardedPage;
let data: ViewData;
const pages: GuardedPage[] = [];

const blackbox = (args: string[], o: { env?: Record<string, string> } = {}): Promise<ChildResult> =>
  runProcess(process.execPath, [BIN, ...args], { cwd: work, ...o });

/** The run's key in the page (its position in the view data). */
const keyOf = (id: string): number => data.runs.find((r) => r.id === id)!.key;

async function open(page: Page, hash: string): Promise<void> {
  // a new document each time: a hash change alone would not reload the page
  await page.goto("about:blank");
  await page.goto(`${pageUrl}${hash}`);
  await viewerReady(page);
}

const stepRow = (page: Page, i: number) => page.locator(`[data-testid=timeline] [data-step="${i}"]`);

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist", "view", "ui-bundle.json")))
    throw new Error(
      "dist/view/ui-bundle.json is missing: run `npm run build` before this test (npm test builds first)",
    );
  work = mkdtempSync(join(tmpdir(), "bb-view-"));
  const demo = await blackbox(["demo", "--dir", "runs"]);
  expect(demo.code, demo.stderr).toBe(0);
  const picnic = await blackbox([
    "fork",
    "runs/trip.json",
    "--at",
    "7",
    "--set",
    '{"city":"Lisbon","setting":"outdoor","activities":["a picnic in the park"]}',
    "-o",
    "runs/trip-picnic.json",
  ]);
  expect(picnic.code, picnic.stderr).toBe(0);
  mkdirSync(join(work, "other"));
  copyFileSync(join(FIXTURES, "parallel.json"), join(work, "other", "parallel.json"));
  copyFileSync(join(FIXTURES, "tampered.json"), join(work, "other", "tampered.json"));
  // payloads that are markup and addresses: shown as text, never loaded or run
  const odd = new TraceBuilder({ id: "odd", createdAt: 1767225600000 });
  const html = '</script><script>window.__pwned = 1</script><img src="https://example.com/x.png"><!--';
  odd.append("model_input", { messages: [{ role: "user", content: html }], tools: [] }, 1767225600000);
  odd.append("model_output", { type: "final_answer", text: "see https://example.com/page" }, 1767225600100);
  odd.append("metadata", { event: "run_completed", status: "success", result: html }, 1767225600200);
  saveTraceSync(join(work, "other", "odd.json"), odd.trace);

  const view = await blackbox([
    "view",
    "runs",
    "other/parallel.json",
    "other/tampered.json",
    "other/odd.json",
    "-o",
    "out/view.html",
  ]);
  expect(view.code, view.stderr).toBe(0);
  expect(view.stdout).toMatch(/^wrote out\/view\.html \(6 runs, \d+ KB\): open it in a browser\n$/);
  pageFile = join(work, "out", "view.html");
  pageUrl = pathToFileURL(pageFile).href;
  browser = await launchChromium();
  main = await guardedPage(browser, (url) => url.split("#")[0] === pageUrl);
  pages.push(main);
  await open(main.page, "");
  data = JSON.parse((await main.page.locator("#bb-data").textContent())!) as ViewData;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("the file", () => {
  it("refers to nothing on the network: no address, no src or href, no font or import, a CSP that loads nothing", () => {
    const html = readFileSync(pageFile, "utf8");
    // the data elements hold the runs (which may mention any address, as text)
    const opens = html.match(/<script\b/g)!.length;
    expect(html.match(/<\/script>/g)!.length).toBe(opens); // no payload ends its element early
    const shell = html.replace(/<script type="application\/(json|x-ndjson)"[^>]*>[^<]*<\/script>/g, "");
    expect(shell.match(/<script\b/g)).toHaveLength(1); // the viewer's one script
    // XML namespace names in Preact's code (createElementNS) are names, not addresses
    const namespaces = /http:\/\/www\.w3\.org\/(2000\/svg|1998\/Math\/MathML|1999\/xhtml|1999\/xlink)/g;
    const address = /(https?|wss?|ftp):\/\/\S*/i.exec(shell.replace(namespaces, ""));
    expect(address?.[0]).toBeUndefined();
    // the markup around the script and the style: no attribute that loads anything
    const markup = shell.replace(/<script>[\s\S]*?<\/script>/, "").replace(/<style>[\s\S]*?<\/style>/, "");
    expect(markup.length).toBeLessThan(2000);
    expect(markup).not.toMatch(/\s(src|href|srcset|action|poster|data)\s*=/i);
    expect(markup).not.toMatch(/<(link|iframe|object|embed|img|base)\b/i);
    const style = /<style>([\s\S]*?)<\/style>/.exec(shell)![1]!;
    expect(style.match(/@import|@font-face|url\(/i)?.[0]).toBeUndefined();
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(shell)![1]!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[^']+'(;|$)/);
  });

  it("embeds each run's verify verdict and the divergences diffTraces reports", async () => {
    for (const run of data.runs) {
      const verdict = verifyTrace(await loadTrace(join(work, run.file)));
      expect(run.verify.ok, run.file).toBe(verdict.ok);
    }
    const d = await blackbox(["diff", "--json", "runs/trip.json", "runs/trip-rain.json"]);
    const diff = JSON.parse(d.stdout) as { divergence: { index: number; path: string } };
    const pair = data.pairs.find(
      (p) => [p.a, p.b].sort().join() === [keyOf("trip"), keyOf("trip-rain")].sort().join() && p.divergence !== null,
    )!;
    expect(pair.divergence!.index).toBe(diff.divergence.index);
    expect(pair.divergence!.path).toBe(diff.divergence.path);
  });
});

describe("the run", () => {
  it("lists every step of the run with the line blackbox show prints for it", async () => {
    const { page } = main;
    await open(page, `#run-${keyOf("trip")}`);
    const show = JSON.parse((await blackbox(["show", "--json", "runs/trip.json"])).stdout) as {
      steps: { index: number; type: string; text: string }[];
    };
    const rows = page.locator("[data-testid=timeline] [role=option]");
    await expect.poll(() => rows.count()).toBe(show.steps.length);
    for (const s of show.steps) {
      const row = stepRow(page, s.index);
      expect(await row.locator(".summary").textContent()).toContain(s.text);
      expect(await row.locator(".chip").textContent()).toBe(s.type.replace("_", " "));
    }
    await expect.poll(() => page.getByTestId("chain").textContent()).toBe("chain verified");
    expect(await page.getByTestId("outcome").textContent()).toBe("outcome: success");
    await screenshot(page, "timeline");
  });

  it("shows a model input as its conversation, the messages new since the previous input marked", async () => {
    const { page } = main;
    await open(page, `#run-${keyOf("trip")}-step-4`);
    const detail = page.getByTestId("step-detail");
    expect(await detail.getAttribute("data-step")).toBe("4");
    const messages = detail.locator(".message");
    expect(await messages.count()).toBe(3);
    // step 0 held the user's message; the tool round is new
    expect(await messages.evaluateAll((els) => els.map((e) => e.getAttribute("data-new")))).toEqual([
      "false",
      "true",
      "true",
    ]);
    expect(await detail.textContent()).toContain("blackbox-demo-planner");
    await screenshot(page, "conversation");
  });

  it("shows a recorded call's model and params, and an error result in red", async () => {
    const { page } = main;
    const key = keyOf("parallel");
    const run = data.runs[key]!;
    const first = run.steps.findIndex((s) => s.type === "model_input");
    await open(page, `#run-${key}-step-${first}`);
    const detail = page.getByTestId("step-detail");
    await expect.poll(() => detail.textContent()).toContain("claude-sonnet-4-5");
    expect(await detail.textContent()).toContain("temperature");
    const failed = run.steps.findIndex((s) => s.type === "tool_result" && s.error);
    expect(failed).toBeGreaterThan(0);
    const row = stepRow(page, failed);
    expect(await row.getAttribute("class")).toContain("error");
    const red = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--bad").trim());
    const color = await row.locator(".summary").evaluate((e) => getComputedStyle(e).color);
    const expected = await page.evaluate((c) => {
      const probe = document.createElement("span");
      probe.style.color = c;
      document.body.appendChild(probe);
      const v = getComputedStyle(probe).color;
      probe.remove();
      return v;
    }, red);
    expect(color).toBe(expected);
  });

  it("says where the hash chain of an edited cassette breaks", async () => {
    const { page } = main;
    const key = keyOf(data.runs.find((r) => r.file.endsWith("tampered.json"))!.id);
    const verdict = verifyTrace(await loadTrace(join(work, "other", "tampered.json")));
    const first = verdict.problems.find((p) => p.stepIndex !== null)!.stepIndex;
    await open(page, `#run-${key}`);
    expect(await page.getByTestId("chain").textContent()).toBe(`chain breaks at step ${first}`);
    expect(await stepRow(page, first!).getAttribute("class")).toContain("broken");
  });

  it("moves with j/k and the arrow keys, and keeps the step in the address", async () => {
    const { page } = main;
    await open(page, "#step-5");
    const selected = page.locator("[data-testid=timeline] [aria-selected=true]");
    expect(await selected.getAttribute("data-step")).toBe("5");
    expect(await page.getByTestId("step-detail").getAttribute("data-step")).toBe("5");
    await page.keyboard.press("j");
    await expect.poll(() => selected.getAttribute("data-step")).toBe("6");
    await expect.poll(() => new URL(page.url()).hash).toBe("#step-6"); // the address follows the selection in a later frame
    // two presses in one task, with no render between them, each move one step
    await page.evaluate(() => {
      for (const _ of [1, 2]) document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "k", bubbles: true }));
    });
    await expect.poll(() => selected.getAttribute("data-step")).toBe("4");
    await page.locator("[data-testid=timeline]").focus();
    await page.keyboard.press("ArrowDown");
    await expect.poll(() => selected.getAttribute("data-step")).toBe("5");
    await page.keyboard.press("End");
    await expect.poll(() => selected.getAttribute("data-step")).toBe(String(data.runs[0]!.steps.length - 1));
    await page.keyboard.press("/");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("search");
  });

  it("copies a payload as JSON", async () => {
    const { page } = main;
    await open(page, `#run-${keyOf("trip")}-step-3`);
    await page.evaluate(() => {
      Object.defineProperty(navigator, "clipboard", {
        value: { writeText: async (t: string) => void ((window as unknown as { copied: string }).copied = t) },
      });
    });
    await page.getByRole("button", { name: "Copy step 3's payload as JSON" }).click();
    const copied = await page.waitForFunction(() => (window as unknown as { copied?: string }).copied);
    const trip = await loadTrace(join(work, "runs", "trip.json"));
    expect(JSON.parse((await copied.jsonValue()) as string)).toEqual(trip.steps[3]!.payload);
  });

  it("shows markup and addresses in a payload as text, and runs none of it", async () => {
    const { page } = main;
    await open(page, `#run-${keyOf("odd")}-step-0`);
    expect(await page.getByTestId("step-detail").textContent()).toContain("<script>window.__pwned = 1</script>");
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("img, iframe, a[href]").count()).toBe(0);
  });
});

describe("play-back", () => {
  // a run whose waits tell apart: a quick tool round, a model call of a minute, one of 400 ms
  const T = 1767225600000;
  const times = [T, T + 100, T + 120, T + 150, T + 160, T + 60_160, T + 60_560];
  let paced: Page;
  let pacedUrl: string;
  let steps: ViewData["runs"][number]["steps"];

  beforeAll(async () => {
    const b = new TraceBuilder({ id: "paced", createdAt: T });
    const call = { toolCallId: "c1", toolName: "get_weather", toolInput: { city: "Lisbon" } };
    b.append("model_input", { messages: [{ role: "user", content: "weather?" }], tools: [] }, times[0]);
    b.append("model_output", { type: "tool_call", ...call }, times[1]);
    b.append("tool_call", call, times[2]);
    b.append("tool_result", { toolCallId: "c1", toolName: "get_weather", result: { tempC: 21 } }, times[3]);
    b.append("model_input", { messages: [{ role: "user", content: "weather?" }], tools: [] }, times[4]);
    b.append("model_output", { type: "final_answer", text: "21 degrees" }, times[5]);
    b.append("metadata", { event: "run_completed", status: "success", result: "21 degrees" }, times[6]);
    mkdirSync(join(work, "paced"));
    saveTraceSync(join(work, "paced", "paced.json"), b.trace);
    const view = await blackbox(["view", "paced/paced.json", "-o", "out/paced.html"]);
    expect(view.code, view.stderr).toBe(0);
    pacedUrl = pathToFileURL(join(work, "out", "paced.html")).href;
    const guarded = await guardedPage(browser, (url) => url.split("#")[0] === pacedUrl);
    pages.push(guarded);
    paced = guarded.page;
    await paced.goto(pacedUrl);
    await viewerReady(paced);
    steps = (JSON.parse((await paced.locator("#bb-data").textContent())!) as ViewData).runs[0]!.steps;
    expect(steps.map((s) => s.timestamp)).toEqual(times);
  });

  const openAt = async (step: number): Promise<void> => {
    await paced.goto("about:blank");
    await paced.goto(`${pacedUrl}#step-${step}`);
    await viewerReady(paced);
    // every change of the selected step, with the page's clock
    await paced.evaluate(() => {
      const list = document.querySelector("[data-testid=timeline]")!;
      const w = window as unknown as { moves: { t: number; step: number }[] };
      w.moves = [];
      new MutationObserver(() =>
        w.moves.push({ t: performance.now(), step: Number(list.getAttribute("aria-activedescendant")!.slice(9)) }),
      ).observe(list, { attributes: true, attributeFilter: ["aria-activedescendant"] });
    });
  };
  const moves = (): Promise<{ t: number; step: number }[]> =>
    paced.evaluate(() => (window as unknown as { moves: { t: number; step: number }[] }).moves);
  const selected = async (): Promise<number> =>
    Number(await paced.locator("[data-testid=timeline] [aria-selected=true]").getAttribute("data-step"));
  const playing = (): Promise<string | null> => paced.getByTestId("play").getAttribute("data-playing");

  it("Play moves the selection a step at a time to the last step, waiting as the timestamps say, and stops", async () => {
    await openAt(0);
    await paced.getByTestId("speed").selectOption("10");
    const play = paced.getByRole("button", { name: /^Play the run at the recorded pace/ });
    await play.click();
    await expect.poll(selected, { timeout: 5000 }).toBe(steps.length - 1);
    await expect.poll(playing).toBe("false");
    expect(await paced.getByTestId("play").textContent()).toBe("Play");
    const seen = await moves();
    // every step in turn, none skipped: it did not jump to the end
    expect(seen.map((m) => m.step)).toEqual([1, 2, 3, 4, 5, 6]);
    // the time on each step (from the move to it to the move on) is the schedule's wait
    const dwell = seen.slice(1).map((m, i) => ({ step: seen[i]!.step, ms: m.t - seen[i]!.t }));
    for (const d of dwell) expect(d.ms, `step ${d.step}`).toBeGreaterThanOrEqual(stepDelay(steps, d.step, 10)! - 2);
    // the minute-long model call is the longest wait, played as the cap (200 ms at 10x), not 6 s
    const longest = dwell.reduce((a, b) => (b.ms > a.ms ? b : a));
    expect(longest.step).toBe(4);
    expect(longest.ms).toBeLessThan(1500);
    expect(new URL(paced.url()).hash).toBe(`#step-${steps.length - 1}`);
    // stopped: nothing moves after the last step
    await paced.waitForTimeout(300);
    expect((await moves()).length).toBe(seen.length);
  });

  it("Pause stops it, p plays on from the selected step, and a move of one's own pauses it", async () => {
    await openAt(0);
    await paced.getByTestId("speed").selectOption("2");
    await paced.getByTestId("play").click();
    // at step 4 it waits 1 s (the minute-long call, capped at 2 s, at 2x): pause there
    await expect.poll(selected, { timeout: 5000 }).toBe(4);
    await paced.getByRole("button", { name: /^Pause the play-back/ }).click();
    expect(await playing()).toBe("false");
    const pausedAt = await selected();
    const count = (await moves()).length;
    await paced.waitForTimeout(1300); // longer than any wait at 2x
    expect(await selected()).toBe(pausedAt);
    expect((await moves()).length).toBe(count);

    // a step back, then p: on from there, its next step first
    await paced.keyboard.press("k");
    await expect.poll(selected).toBe(pausedAt - 1);
    const before = (await moves()).length;
    await paced.keyboard.press("p");
    await expect.poll(async () => (await moves()).slice(before)[0]?.step).toBe(pausedAt);
    // j while it plays (it waits 1 s on step 4): the selection is the reader's, and the player pauses
    const beforeJ = (await moves()).length;
    await paced.keyboard.press("j");
    await expect.poll(playing).toBe("false");
    await paced.waitForTimeout(1300);
    expect((await moves()).slice(beforeJ).map((m) => m.step)).toEqual([pausedAt + 1]); // j's move, and no other

    // p plays the rest and stops at the end; p at the end starts again at step 0
    await paced.keyboard.press("p");
    await expect.poll(selected, { timeout: 5000 }).toBe(steps.length - 1);
    await expect.poll(playing).toBe("false");
    const end = (await moves()).length;
    await paced.keyboard.press("p");
    await expect.poll(async () => (await moves()).slice(end)[0]?.step).toBe(0);
    await paced.keyboard.press("p");
    await expect.poll(playing).toBe("false");
  });
});

describe("find", () => {
  it("search finds a tool result, and Enter opens its step", async () => {
    const { page } = main;
    await open(page, "#step-0");
    await page.keyboard.press("/");
    await page.keyboard.type("Gulbenkian");
    const hits = page.getByTestId("search-hit");
    await expect.poll(() => hits.count()).toBeGreaterThan(0);
    const found = await hits.evaluateAll((els) =>
      els.map((e) => ({ run: Number(e.getAttribute("data-run")), step: Number(e.getAttribute("data-step")) })),
    );
    const rain = keyOf("trip-rain");
    const at = data.runs[rain]!.steps.findIndex((s) => s.type === "tool_result" && s.text.includes("find_activities"));
    expect(found).toContainEqual({ run: rain, step: at });
    // only runs where the museum was suggested: the rainy one, not the sunny ones
    expect(found.every((h) => h.run === rain)).toBe(true);
    await screenshot(page, "search");
    const index = found.findIndex((h) => h.run === rain && h.step === at);
    for (let i = 0; i < index; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect.poll(() => new URL(page.url()).hash).toBe(`#run-${rain}-step-${at}`);
    expect(await page.getByTestId("step-detail").textContent()).toContain("Gulbenkian");
  });

  it("filters the list to the tool steps, the keys move among them, and clearing lists every step", async () => {
    const { page } = main;
    const trip = data.runs[keyOf("trip")]!;
    const tools = trip.steps.flatMap((s, i) => (s.type === "tool_call" || s.type === "tool_result" ? [i] : []));
    expect(tools.length).toBeGreaterThan(2);
    await open(page, `#run-${trip.key}-step-0`);
    const rows = page.locator("[data-testid=timeline] [role=option]");
    const listed = () => rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-step"))));
    await expect.poll(listed).toEqual(trip.steps.map((_, i) => i));
    await page.getByTestId("filter").selectOption("tool");
    await expect.poll(listed).toEqual(tools);
    expect(await page.getByTestId("filter-count").textContent()).toBe(`${tools.length} of ${trip.steps.length}`);
    // one row after another, as the virtualized list places them
    const tops = await rows.evaluateAll((els) => els.map((e) => (e as HTMLElement).style.top));
    expect(tops).toEqual(tools.map((_, i) => `${i * ROW_HEIGHT}px`));
    // the hidden selected step gave way to the first tool step; j and k move among the tool steps
    const selected = page.locator("[data-testid=timeline] [aria-selected=true]");
    await expect.poll(() => selected.getAttribute("data-step")).toBe(String(tools[0]));
    await page.locator("[data-testid=timeline]").focus();
    await page.keyboard.press("j");
    await expect.poll(() => selected.getAttribute("data-step")).toBe(String(tools[1]));
    await page.keyboard.press("End");
    await expect.poll(() => selected.getAttribute("data-step")).toBe(String(tools.at(-1)));
    await page.keyboard.press("k");
    await expect.poll(() => selected.getAttribute("data-step")).toBe(String(tools.at(-2)));
    expect(await page.getByTestId("step-detail").getAttribute("data-step")).toBe(String(tools.at(-2)));
    await page.getByTestId("filter").selectOption("all");
    await expect.poll(listed).toEqual(trip.steps.map((_, i) => i));
    expect(await page.getByTestId("filter-count").count()).toBe(0);
    await page.keyboard.press("j");
    await expect.poll(() => selected.getAttribute("data-step")).toBe(String(tools.at(-2)! + 1));
  });

  it("filters the list to the search's hits while a search is on", async () => {
    const { page } = main;
    const rain = keyOf("trip-rain");
    await open(page, `#run-${rain}-step-0`);
    expect(await page.getByTestId("filter").locator('option[value="hits"]').isDisabled()).toBe(true);
    await page.getByTestId("search").fill("Gulbenkian");
    const hits = page.getByTestId("search-hit");
    await expect.poll(() => hits.count()).toBeGreaterThan(0);
    const found = await hits.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-step"))));
    await page.getByTestId("filter").selectOption("hits");
    const rows = page.locator("[data-testid=timeline] [role=option]");
    await expect
      .poll(() => rows.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-step")))))
      .toEqual([...new Set(found)].sort((a, b) => a - b));
    // no search, no hits to list: every step again
    await page.getByTestId("search").fill("");
    await expect.poll(() => page.getByTestId("filter").inputValue()).toBe("all");
    await expect.poll(() => rows.count()).toBe(data.runs[rain]!.steps.length);
  });

  it("does not count a word that is only an object key", async () => {
    const { page } = main;
    await open(page, "#step-0");
    await page.getByTestId("search").fill("toolCallId");
    await expect.poll(() => page.getByTestId("search-results").textContent()).toContain("no step holds it");
  });
});

describe("many runs", () => {
  it("draws the fork tree: the parent, and each child under it at its fork point", async () => {
    const { page } = main;
    await open(page, "#runs");
    const tree = page.getByTestId("fork-tree");
    const trip = tree.locator(':scope > li[data-run-id="trip"]');
    expect(await trip.count()).toBe(1);
    const children = trip.locator(":scope > ul > li");
    expect(await children.evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")))).toEqual([
      "trip-rain",
      "trip-picnic",
    ]);
    expect(await children.nth(0).getByTestId("fork-at").first().textContent()).toBe("forked at step 3 (tool result)");
    expect(await children.nth(1).getByTestId("fork-at").first().textContent()).toBe("forked at step 7 (tool result)");
    // the other runs are roots of their own
    const roots = await tree.locator(":scope > li").evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")));
    const tampered = data.runs.find((r) => r.file.endsWith("tampered.json"))!.id;
    expect(roots.sort()).toEqual(["odd", "parallel", "trip", tampered].sort());
    await screenshot(page, "fork-tree");
  });

  it("marks where children forked in the parent's timeline, and links parent and child at the fork point", async () => {
    const { page } = main;
    const trip = keyOf("trip");
    const rain = keyOf("trip-rain");
    const picnic = keyOf("trip-picnic");
    await open(page, `#run-${trip}-step-0`);
    const marked = page.locator("[data-testid=timeline] .row.forked-here");
    await expect
      .poll(() => marked.evaluateAll((els) => els.map((e) => e.getAttribute("data-step"))))
      .toEqual(["3", "7"]);
    expect(await stepRow(page, 3).locator(".fork-mark").textContent()).toBe("forked here");
    // the fork step's detail names each child forked there, linked at its fork point
    await stepRow(page, 7).click();
    const children = page.getByTestId("fork-child");
    expect(await children.evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")))).toEqual(["trip-picnic"]);
    expect(await children.first().getAttribute("href")).toBe(`#run-${picnic}-step-7`);
    await stepRow(page, 3).click();
    expect(await children.evaluateAll((els) => els.map((e) => e.getAttribute("data-run-id")))).toEqual(["trip-rain"]);
    await children.first().click();
    await expect.poll(() => page.getByTestId("run-id").textContent()).toBe("trip-rain");
    expect(new URL(page.url()).hash).toBe(`#run-${rain}-step-3`);
    expect(await page.getByTestId("step-detail").getAttribute("data-step")).toBe("3");
    expect(await stepRow(page, 3).getAttribute("class")).toContain("fork-point");
    expect(await page.locator("[data-testid=timeline] .row.forked-here").count()).toBe(0);
    // back to the parent at that step, from the child's fork note
    const back = page.getByTestId("fork-parent");
    expect(await back.textContent()).toBe("trip at step 3");
    await back.click();
    await expect.poll(() => page.getByTestId("run-id").textContent()).toBe("trip");
    expect(new URL(page.url()).hash).toBe(`#run-${trip}-step-3`);
    expect(await page.getByTestId("step-detail").getAttribute("data-step")).toBe("3");
    // the child's header links the parent at the fork point too
    await open(page, `#run-${picnic}-step-0`);
    await page.locator(".run-head").getByRole("button", { name: "trip", exact: true }).click();
    await expect.poll(() => new URL(page.url()).hash).toBe(`#run-${trip}-step-7`);
    expect(await page.getByTestId("step-detail").getAttribute("data-step")).toBe("7");
  });

  it("shows a child beside its parent from the first divergence, the step blackbox diff reports", async () => {
    const { page } = main;
    await open(page, "#runs");
    await page.getByRole("button", { name: "Compare trip-picnic with its parent trip" }).click();
    const verdict = page.getByTestId("divergence");
    await expect.poll(() => verdict.textContent()).toContain("First divergence at step 7");
    const d = JSON.parse((await blackbox(["diff", "--json", "runs/trip.json", "runs/trip-picnic.json"])).stdout) as {
      divergence: { index: number; path: string };
    };
    expect(d.divergence.index).toBe(7);
    expect(await page.getByTestId("divergence-path").textContent()).toBe(d.divergence.path);
    const divergent = page.locator(".side-by-side .cell.divergent");
    expect(await divergent.evaluateAll((els) => els.map((e) => e.getAttribute("data-step")))).toEqual(["7", "7"]);
    expect(await divergent.nth(0).textContent()).toContain("Tram 28");
    expect(await divergent.nth(1).textContent()).toContain("a picnic in the park");
    // the steps before it are folded, two of them kept for context
    expect(await page.locator(".side-by-side .folded").textContent()).toBe("steps 0-4 are the same in both runs");
    expect(new URL(page.url()).hash).toBe(`#compare-${keyOf("trip")}-${keyOf("trip-picnic")}`);
    await screenshot(page, "compare");
  });
});

describe("edit and fork", () => {
  it("gives the exact blackbox fork command for an edited tool result, and blackbox fork accepts it", async () => {
    const { page } = main;
    await open(page, `#run-${keyOf("trip")}-step-3`);
    await page.getByTestId("edit-result").click();
    const value = page.getByTestId("fork-value");
    await value.fill("{ not json");
    await expect.poll(() => page.getByTestId("fork-problem").textContent()).toMatch(/^The result is not valid JSON/);
    await value.fill('{"city":"Lisbon","forecast":"snow, it\'s cold","tempC":-2}');
    const cli = await page.getByTestId("fork-cli").textContent();
    expect(cli).toBe(
      `blackbox fork runs/trip.json --at 3 --set '{"city":"Lisbon","forecast":"snow, it'\\''s cold","tempC":-2}'`,
    );
    expect(await page.getByTestId("fork-code").textContent()).toContain('forkSet: {\n    "city": "Lisbon",');
    await screenshot(page, "edit-and-fork");

    // run it as a user would paste it, with blackbox on the PATH
    const bin = join(work, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "blackbox"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, "blackbox"), 0o755);
    const ran = await runProcess("sh", ["-c", cli!], { cwd: work, env: { PATH: `${bin}:${process.env.PATH}` } });
    expect(ran.code, ran.stderr).toBe(0);
    const child = await loadTrace(join(work, "runs", "trip.fork-3.json"));
    expect(verifyTrace(child).ok).toBe(true);
    expect(child.steps[3]!.payload).toMatchObject({ result: { forecast: "snow, it's cold", tempC: -2 } });
    const d = await blackbox(["diff", "--json", "runs/trip.json", "runs/trip.fork-3.json"]);
    expect(JSON.parse(d.stdout).divergence).toMatchObject({ index: 3, path: "payload.result.forecast" });
  });

  it("asks for the agent's command for a recorded agent's run, and puts it after --", async () => {
    const { page } = main;
    const key = keyOf("parallel");
    const at = data.runs[key]!.steps.findIndex((s) => s.type === "tool_result");
    await open(page, `#run-${key}-step-${at}`);
    await page.getByTestId("edit-result").click();
    expect(await page.getByTestId("fork-cli").textContent()).toMatch(/ -- <command>$/);
    await page.getByTestId("fork-command").fill("node agent.mjs");
    expect(await page.getByTestId("fork-cli").textContent()).toMatch(
      new RegExp(`^blackbox fork other/parallel\\.json --at ${at} --set '.*' -- node agent\\.mjs$`),
    );
  });
});

describe("looks", () => {
  it("follows the system's dark scheme, and the toggle overrides it", async () => {
    const dark = await guardedPage(browser, (url) => url.split("#")[0] === pageUrl, { colorScheme: "dark" });
    pages.push(dark);
    await open(dark.page, `#run-${keyOf("trip")}-step-4`);
    const bg = (): Promise<string> => dark.page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await bg()).toBe("rgb(21, 24, 29)");
    await screenshot(dark.page, "dark");
    const toggle = dark.page.getByTestId("theme");
    expect(await toggle.getAttribute("aria-label")).toMatch(/^Colour theme: as the system/);
    const theme = (): Promise<string | undefined> => dark.page.evaluate(() => document.documentElement.dataset.theme);
    await toggle.click(); // auto -> dark
    await expect.poll(theme).toBe("dark");
    await toggle.click(); // dark -> light
    await expect.poll(theme).toBe("light");
    expect(await bg()).toBe("rgb(255, 255, 255)");
  });

  it("fits a 1280x800 window: the list and the step side by side, nothing wider than the window", async () => {
    const wide = await guardedPage(browser, (url) => url.split("#")[0] === pageUrl, {
      viewport: { width: 1280, height: 800 },
    });
    pages.push(wide);
    const { page } = wide;
    const hashes = [
      `#run-${keyOf("trip")}-step-3`,
      `#run-${keyOf("trip")}-step-4`,
      "#runs",
      `#compare-${keyOf("trip")}-${keyOf("trip-picnic")}`,
    ];
    for (const hash of hashes) {
      await open(page, hash);
      if (hash.endsWith("step-3")) await page.getByTestId("edit-result").click();
      expect(await page.evaluate(() => document.documentElement.scrollWidth), hash).toBeLessThanOrEqual(1280);
      if (!hash.startsWith("#run-")) continue;
      const list = (await page.getByTestId("timeline").boundingBox())!;
      const detail = (await page.getByTestId("step-detail").boundingBox())!;
      expect(detail.x, hash).toBeGreaterThanOrEqual(list.x + list.width - 1); // the step right of the list
      expect(detail.x + detail.width, hash).toBeLessThanOrEqual(1280);
      expect(detail.y, hash).toBeLessThan(list.y + list.height); // beside it, not below
      expect(list.width, hash).toBeGreaterThanOrEqual(440);
    }
  });

  it("fits a phone-width window: one column, nothing wider than the screen", async () => {
    const phone = await guardedPage(browser, (url) => url.split("#")[0] === pageUrl, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    pages.push(phone);
    await open(phone.page, `#run-${keyOf("trip")}-step-3`);
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const list = await phone.page.getByTestId("timeline").boundingBox();
    const detail = await phone.page.getByTestId("step-detail").boundingBox();
    expect(detail!.y).toBeGreaterThanOrEqual(list!.y + list!.height - 1); // the step below the list
    await screenshot(phone.page, "phone");
  });

  it("names every control for assistive technology", async () => {
    const { page } = main;
    for (const hash of [`#run-${keyOf("trip")}-step-3`, "#runs", `#compare-${keyOf("trip")}-${keyOf("trip-rain")}`]) {
      await open(page, hash);
      if (hash.endsWith("step-3")) await page.getByTestId("edit-result").click();
      const unnamed = await page.evaluate(() =>
        [...document.querySelectorAll("button, input, select, textarea, [role=listbox], [role=tree]")]
          .filter((el) => {
            const label = el.getAttribute("aria-label") ?? (el as HTMLElement).innerText?.trim() ?? "";
            const labelled = el.id !== "" && document.querySelector(`label[for="${el.id}"]`) !== null;
            return label === "" && !labelled && el.closest("label") === null;
          })
          .map((el) => el.outerHTML.slice(0, 80)),
      );
      expect(unnamed, hash).toEqual([]);
    }
  });
});

describe("live", () => {
  let server: ChildProcess | undefined;
  afterAll(() => {
    if (server?.pid && server.exitCode === null) server.kill("SIGTERM");
  });

  it("--serve serves a folder and the page reloads when a cassette is written there", async () => {
    mkdirSync(join(work, "live"));
    server = spawn(process.execPath, [BIN, "view", "--serve", "live", "--port", "0"], {
      cwd: work,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    server.stdout!.on("data", (d) => (stdout += d));
    await expect.poll(() => /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout)?.[1], { timeout: 10_000 }).toBeTruthy();
    const url = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout)![1]!;
    const live = await guardedPage(browser, (u) => u.startsWith(url), { offline: false }); // loopback
    pages.push(live);
    await live.page.goto(url);
    await viewerReady(live.page);
    expect(await live.page.textContent("body")).toContain("No cassettes yet");
    copyFileSync(join(work, "runs", "trip.json"), join(work, "live", "trip.json"));
    await expect.poll(() => live.page.locator("[data-testid=run-id]").textContent(), { timeout: 10_000 }).toBe("trip");
    await live.page.close(); // before the server goes, so that its event stream does not try again
    server.kill("SIGTERM");
    await new Promise((r) => server!.once("exit", r));
    expect(server.exitCode).toBe(0);
  });
});

describe("the network", () => {
  it("no page made a request other than its own file (or, served, its own server)", async () => {
    // the file's pages had no network to reach at all
    expect(await main.page.evaluate(() => navigator.onLine)).toBe(false);
    for (const p of pages) {
      expect(p.stray).toEqual([]);
      expect(p.errors).toEqual([]);
    }
  });
});
