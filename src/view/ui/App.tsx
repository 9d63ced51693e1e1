/**
 * The viewer: a header (run, hash chain, outcome, search, theme), three views (the run,
 * the runs and their fork tree, two runs compared) and the keys that move through them.
 * Where you are is in the address (#step-12, #run-1-step-3, #runs, #compare-0-1), so a
 * link opens the same place.
 *
 * Longer than the house's ~300 lines: the keys, the address and the search each read and set
 * the same place (run, step, tab); the views, the timeline and the step detail are files of
 * their own.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import type { RunMeta, ViewData } from "../model.js";
import { Compare } from "./Compare.js";
import { bytes, duration, isoTime, plural, span } from "./format.js";
import { forkForest, forkIndex, forksOf, type TreeNode } from "./forks.js";
import { Chain, Runs } from "./Runs.js";
import { StepDetail } from "./StepDetail.js";
import { Sweeps } from "./Sweep.js";
import { moveIn, shownSteps, type StepFilter } from "./stepFilter.js";
import { payloadsReady, RunPayloads, type SearchHit } from "./store.js";
import { Timeline } from "./Timeline.js";

type Tab = "run" | "runs" | "compare";

interface Place {
  tab: Tab;
  run: number;
  step: number;
  a: number;
  b: number;
}

/** The place an address names, or undefined when it names none. */
export function parseHash(hash: string, data: ViewData, current: Place): Place | undefined {
  const h = hash.replace(/^#/, "");
  const runOk = (k: number): boolean => k >= 0 && k < data.runs.length;
  let m = /^(?:run-(\d+)-)?step-(\d+)$/.exec(h);
  if (m) {
    const run = m[1] !== undefined ? Number(m[1]) : current.run;
    if (!runOk(run)) return undefined;
    const step = Math.min(Number(m[2]), Math.max(0, data.runs[run]!.steps.length - 1));
    return { ...current, tab: "run", run, step };
  }
  m = /^run-(\d+)$/.exec(h);
  if (m && runOk(Number(m[1]))) return { ...current, tab: "run", run: Number(m[1]), step: 0 };
  if (h === "runs" || h === "tree") return { ...current, tab: "runs" };
  m = /^compare-(\d+)-(\d+)$/.exec(h);
  if (m && runOk(Number(m[1])) && runOk(Number(m[2])))
    return { ...current, tab: "compare", a: Number(m[1]), b: Number(m[2]) };
  return undefined;
}

function hashOf(p: Place): string {
  if (p.tab === "runs") return "#runs";
  if (p.tab === "compare") return `#compare-${p.a}-${p.b}`;
  return p.run === 0 ? `#step-${p.step}` : `#run-${p.run}-step-${p.step}`;
}

/** A child and its parent, else the first two runs: what Compare opens with. */
function defaultPair(data: ViewData, forest: readonly TreeNode[]): [number, number] {
  for (const root of forest) {
    const child = root.children[0];
    if (child) return [root.run.key, child.run.key];
  }
  return [0, Math.min(1, data.runs.length - 1)];
}

type Theme = "auto" | "light" | "dark";
const THEME_KEY = "blackbox-view:theme";

function storedTheme(): Theme {
  try {
    const t = localStorage.getItem(THEME_KEY);
    return t === "light" || t === "dark" ? t : "auto";
  } catch {
    return "auto";
  }
}

const SEARCH_LIMIT = 500;

export function App(props: { data: ViewData }) {
  const { data } = props;
  const payloads = useMemo(() => data.runs.map((r) => new RunPayloads(r.key, r.steps.length)), [data]);
  const [ready, setReady] = useState(payloadsReady());
  const forest = useMemo(() => forkForest(data.runs), [data]);
  const forks = useMemo(() => forkIndex(forest), [forest]);
  const [pairA, pairB] = defaultPair(data, forest);
  const start: Place = { tab: data.sweeps?.length ? "runs" : "run", run: 0, step: 0, a: pairA, b: pairB };
  const [place, setPlace] = useState<Place>(() => parseHash(location.hash, data, start) ?? start);
  const [theme, setTheme] = useState<Theme>(storedTheme);
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<SearchHit[] | null>(null);
  const [active, setActive] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [filter, setFilter] = useState<StepFilter>("all");
  const search = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (ready) return;
    // the page may have finished parsing between the first render and this effect
    if (payloadsReady()) return setReady(true);
    const done = (): void => setReady(true);
    document.addEventListener("DOMContentLoaded", done);
    return () => document.removeEventListener("DOMContentLoaded", done);
  }, []);

  // the page is interactive once the payloads can be read and the step is drawn
  useEffect(() => {
    if (!ready) return;
    requestAnimationFrame(() => {
      if (document.documentElement.dataset.ready) return;
      performance.mark("blackbox-view-interactive");
      document.documentElement.dataset.ready = "true";
    });
  }, [ready]);

  useLayoutEffect(() => {
    if (theme === "auto") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    try {
      localStorage.setItem(THEME_KEY, theme);
    } catch {
      // the choice lasts for this visit
    }
  }, [theme]);

  useEffect(() => {
    const h = hashOf(place);
    if (location.hash !== h) history.replaceState(null, "", h);
  }, [place]);

  useEffect(() => {
    const onHash = (): void => {
      const p = parseHash(location.hash, data, place);
      if (p) setPlace(p);
    };
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, [place]);

  // a served page reloads when a cassette changes
  useEffect(() => {
    if (!data.live) return;
    const events = new EventSource("events");
    events.addEventListener("change", () => location.reload());
    return () => events.close();
  }, []);

  const run = data.runs[place.run];
  /** Selects a step; a function is given the step selected now, so keys pressed faster than a render each move one. */
  const select = (step: number | ((current: number) => number)): void => {
    if (!run) return;
    setPlace((p) => {
      const want = typeof step === "function" ? step(p.step) : step;
      return { ...p, tab: "run", step: Math.max(0, Math.min(run.steps.length - 1, want)) };
    });
  };
  const open = (key: number, step = 0): void => setPlace({ ...place, tab: "run", run: key, step });

  const runSearch = (q: string): void => {
    setQuery(q);
    setActive(0);
    if (q.trim() === "" || !ready) {
      if (filter === "hits") setFilter("all"); // no search, no hits to list
      return setHits(null);
    }
    const found: SearchHit[] = [];
    for (const p of payloads) {
      if (found.length >= SEARCH_LIMIT) break;
      try {
        found.push(...p.search(q, SEARCH_LIMIT - found.length));
      } catch {
        // a run whose payloads cannot be read shows that in its steps
      }
    }
    setHits(found);
  };
  const goHit = (h: SearchHit): void => setPlace({ ...place, tab: "run", run: h.run, step: h.step });

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      const target = e.target as HTMLElement;
      const typing = target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT";
      if (e.key === "Escape" && target === search.current) {
        runSearch("");
        search.current!.blur();
        list.current?.querySelector<HTMLElement>(".timeline")?.focus();
        return;
      }
      if (typing || e.metaKey || e.ctrlKey || e.altKey) return;
      if (e.key === "/") {
        e.preventDefault();
        search.current?.focus();
        return;
      }
      if (place.tab !== "run" || !run) return;
      const inList = target.classList.contains("timeline") || target === document.body;
      // the keys move among the steps the filter shows
      let move: number | "first" | "last" | undefined;
      if (e.key === "j" || (inList && e.key === "ArrowDown")) move = 1;
      else if (e.key === "k" || (inList && e.key === "ArrowUp")) move = -1;
      else if (e.key === "g" || (inList && e.key === "Home")) move = "first";
      else if (e.key === "G" || (inList && e.key === "End")) move = "last";
      else if (inList && e.key === "PageDown") move = 20;
      else if (inList && e.key === "PageUp") move = -20;
      else if (e.key === "p") {
        e.preventDefault();
        return setPlaying(!playing);
      } else if (e.key === "n" && hits && hits.length > 0) {
        const i = (active + 1) % hits.length;
        setActive(i);
        return goHit(hits[i]!);
      } else if (e.key === "N" && hits && hits.length > 0) {
        const i = (active - 1 + hits.length) % hits.length;
        setActive(i);
        return goHit(hits[i]!);
      }
      if (move === undefined) return;
      e.preventDefault();
      const by = move;
      select((step) => moveIn(shown, step, by));
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  });

  const hitSteps = useMemo(
    () => new Set((hits ?? []).filter((h) => h.run === place.run).map((h) => h.step)),
    [hits, place.run],
  );
  const shown = useMemo(() => (run ? shownSteps(run.steps, filter, hitSteps) : []), [run, filter, hitSteps]);
  /** Lists the steps `f` keeps; a selected step it hides gives way to the next one shown (else the last). */
  const changeFilter = (f: StepFilter): void => {
    setFilter(f);
    if (!run) return;
    const keep = shownSteps(run.steps, f, hitSteps);
    if (keep.length > 0 && !keep.includes(place.step)) select(keep.find((i) => i > place.step) ?? keep.at(-1)!);
  };
  const broken = useMemo(
    () => new Set((run?.verify.problems ?? []).map((p) => p.stepIndex).filter((i): i is number => i !== null)),
    [place.run],
  );

  const nextTheme: Record<Theme, Theme> = { auto: "dark", dark: "light", light: "auto" };
  return (
    <div class="app">
      <header class="top">
        <div class="brand" aria-label="Blackbox viewer">
          <span class="logo" aria-hidden="true" />
          Blackbox
          {data.live && (
            <span class="badge live" title="this page reloads when a cassette changes">
              live
            </span>
          )}
        </div>
        {data.runs.length > 1 && (
          <label class="field inline">
            <span class="sr-only">Run</span>
            <select
              value={String(place.run)}
              onChange={(e) => open(Number((e.target as HTMLSelectElement).value))}
              aria-label="Run to show"
            >
              {data.runs.map((r) => (
                <option key={r.key} value={String(r.key)}>
                  {r.id}
                </option>
              ))}
            </select>
          </label>
        )}
        <div class="search" role="search">
          <label class="sr-only" for="search">
            Search messages, tool inputs and results
          </label>
          <input
            id="search"
            ref={search}
            type="search"
            placeholder="Search (press /)"
            value={query}
            autocomplete="off"
            onInput={(e) => runSearch((e.target as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (!hits || hits.length === 0) return;
              if (e.key === "ArrowDown") {
                e.preventDefault();
                setActive(Math.min(hits.length - 1, active + 1));
              } else if (e.key === "ArrowUp") {
                e.preventDefault();
                setActive(Math.max(0, active - 1));
              } else if (e.key === "Enter") {
                e.preventDefault();
                goHit(hits[active]!);
              }
            }}
            aria-controls="search-results"
            data-testid="search"
          />
          {hits !== null && (
            <div class="results" id="search-results" data-testid="search-results">
              <p class="muted" role="status">
                {hits.length === 0
                  ? "no step holds it"
                  : `${hits.length >= SEARCH_LIMIT ? `first ${SEARCH_LIMIT}` : plural(hits.length, "step")} (Enter opens, n / N next and previous)`}
              </p>
              <ul role="listbox" aria-label="Search results">
                {hits.slice(0, 200).map((h, i) => (
                  <li
                    key={`${h.run}:${h.step}`}
                    id={`hit-${i}`}
                    role="option"
                    aria-selected={i === active}
                    class={i === active ? "active" : ""}
                    onMouseDown={(e) => {
                      e.preventDefault();
                      setActive(i);
                      goHit(h);
                    }}
                    data-testid="search-hit"
                    data-run={h.run}
                    data-step={h.step}
                  >
                    <span class="where">
                      {data.runs.length > 1 ? `${data.runs[h.run]!.id} · ` : ""}step {h.step}{" "}
                      <span class={`chip c-${data.runs[h.run]!.steps[h.step]!.type}`}>
                        {data.runs[h.run]!.steps[h.step]!.type.replace("_", " ")}
                      </span>
                    </span>
                    <span class="snippet">
                      {h.before}
                      <mark>{h.match}</mark>
                      {h.after}
                    </span>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
        <button
          type="button"
          class="btn theme"
          onClick={() => setTheme(nextTheme[theme])}
          aria-label={`Colour theme: ${theme === "auto" ? "as the system" : theme}. Switch to ${nextTheme[theme] === "auto" ? "the system's" : nextTheme[theme]}`}
          data-testid="theme"
        >
          {theme === "auto" ? "Theme: auto" : theme === "dark" ? "Theme: dark" : "Theme: light"}
        </button>
      </header>
      <nav class="tabs" role="tablist" aria-label="Views">
        {(
          [
            ["run", "Run"],
            ["runs", `Runs & forks (${data.runs.length})`],
            ["compare", "Compare"],
          ] as const
        ).map(([tab, label]) => (
          <button
            type="button"
            role="tab"
            key={tab}
            id={`tab-${tab}`}
            aria-selected={place.tab === tab}
            aria-controls={`panel-${tab}`}
            disabled={tab === "compare" && data.runs.length < 2}
            class={place.tab === tab ? "tab active" : "tab"}
            onClick={() => setPlace({ ...place, tab })}
          >
            {label}
          </button>
        ))}
      </nav>
      <main class={`panel panel-${place.tab}`}>
        <div id={`panel-${place.tab}`} role="tabpanel" aria-labelledby={`tab-${place.tab}`} class="panel-body">
          {data.runs.length === 0 ? (
            <div class="empty-page">
              <h2>No cassettes yet</h2>
              <p>
                {data.watching ? (
                  <>
                    Watching <code>{data.watching}</code>: this page reloads when a cassette is written there.
                  </>
                ) : (
                  "No runs were given."
                )}
              </p>
              {data.skipped.length > 0 && <p>{plural(data.skipped.length, "file")} there are not cassettes.</p>}
            </div>
          ) : place.tab === "runs" ? (
            <>
              <Sweeps data={data} onOpen={open} />
              <Runs
                data={data}
                current={place.run}
                onOpen={open}
                onCompare={(a, b) => setPlace({ ...place, tab: "compare", a, b })}
                forest={forest}
              />
            </>
          ) : place.tab === "compare" ? (
            <Compare
              data={data}
              a={place.a}
              b={place.b}
              payloads={payloads}
              ready={ready}
              onPick={(a, b) => setPlace({ ...place, a, b })}
              onOpen={open}
            />
          ) : (
            run && (
              <div class="run-view" ref={list}>
                <RunHeader data={data} runKey={place.run} parent={forks.parent.get(place.run)} onOpen={open} />
                <div class="split">
                  <Timeline
                    run={run}
                    selected={place.step}
                    onSelect={select}
                    hits={hitSteps}
                    broken={broken}
                    forks={forksOf(forks, place.run)}
                    shown={shown}
                    filter={filter}
                    onFilter={changeFilter}
                    searching={hits !== null}
                    playing={playing}
                    onPlaying={setPlaying}
                  />
                  <StepDetail
                    data={data}
                    run={run}
                    step={place.step}
                    payloads={payloads[place.run]!}
                    ready={ready}
                    onSelect={select}
                    forks={forksOf(forks, place.run).get(place.step) ?? []}
                    parent={forks.parent.get(place.run)}
                  />
                </div>
              </div>
            )
          )}
        </div>
      </main>
    </div>
  );
}

function RunHeader(props: {
  data: ViewData;
  runKey: number;
  /** The loaded run this one was forked from, if any. */
  parent: RunMeta | undefined;
  onOpen: (run: number, step?: number) => void;
}) {
  const run = props.data.runs[props.runKey]!;
  const { parent } = props;
  const { t0, t1 } = span(run);
  let models = 0;
  let tools = 0;
  for (const s of run.steps) {
    if (s.type === "model_input") models++;
    else if (s.type === "tool_call") tools++;
  }
  const o = run.outcome;
  const firstBreak = run.verify.problems.find((p) => p.stepIndex !== null)?.stepIndex ?? null;
  return (
    <section class="run-head" aria-label={`Run ${run.id}`}>
      <div class="title">
        <h1 data-testid="run-id">{run.id}</h1>
        <code class="muted">{run.file}</code>
      </div>
      <div class="facts">
        <span>{plural(run.steps.length, "step")}</span>
        <span>{plural(models, "model call")}</span>
        <span>{plural(tools, "tool call")}</span>
        <span>{duration(t1 - t0)}</span>
        <span>{isoTime(run.createdAt)}</span>
        <span>{bytes(run.bytes)}</span>
        {run.parentId !== null && (
          <span>
            forked from{" "}
            {parent ? (
              <button type="button" class="link" onClick={() => props.onOpen(parent.key, run.forkAt ?? 0)}>
                {run.parentId}
              </button>
            ) : (
              <code>{run.parentId}</code>
            )}{" "}
            at step {run.forkAt ?? "?"}
          </span>
        )}
      </div>
      <div class="verdicts">
        <span data-testid="chain">
          <Chain run={run} />
        </span>
        <span
          data-testid="outcome"
          class={`badge ${o.status === "success" ? "ok" : o.status === "error" ? "bad" : "warn"}`}
        >
          {o.status === "success"
            ? "outcome: success"
            : o.status === "error"
              ? `outcome: error (${o.reason})`
              : "outcome: none"}
        </span>
        {o.status === "success" && o.result !== undefined && <span class="result-text">{o.result}</span>}
        {o.status === "error" && <span class="result-text bad-text">{o.error}</span>}
      </div>
      {!run.verify.ok && (
        <details class="problems" data-testid="chain-problems">
          <summary>
            verify found {plural(run.verify.problems.length + run.verify.more, "problem")}
            {firstBreak !== null ? `, the first at step ${firstBreak}` : ""}: the cassette was edited or damaged after
            recording
          </summary>
          <ul>
            {run.verify.problems.map((p, i) => (
              <li key={i}>
                {p.stepIndex !== null ? (
                  <button type="button" class="link" onClick={() => props.onOpen(run.key, p.stepIndex!)}>
                    step {p.stepIndex}
                  </button>
                ) : (
                  "the run"
                )}{" "}
                <code>{p.path}</code>: {p.message}
              </li>
            ))}
            {run.verify.more > 0 && <li>and {run.verify.more} more</li>}
          </ul>
        </details>
      )}
    </section>
  );
}
