/**
 * The run's steps as a list that draws only the rows in view (a run of 100 000 steps
 * scrolls like one of ten): index, time since the first step, type, what the step holds,
 * and its bar in the waterfall (a model call from its input to its output, a tool call
 * from its call to its result). Above the list, the player: Play moves the selection a step
 * at a time at the recorded pace (the waits are playback.ts's), and any other move pauses it.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { RunMeta } from "../model.js";
import { duration, elapsed, span, TYPE_LABEL } from "./format.js";
import { SPEEDS, speedLabel, stepDelay, type Speed } from "./playback.js";
import { ROW_HEIGHT } from "./rowHeight.js";
import { FILTERS, moveIn, positionOf, type StepFilter } from "./stepFilter.js";

const OVERSCAN = 8;

export interface TimelineProps {
  run: RunMeta;
  selected: number;
  onSelect: (step: number) => void;
  /** Steps search found, marked in the list. */
  hits: ReadonlySet<number>;
  /** Steps whose hash chain verify rejects. */
  broken: ReadonlySet<number>;
  /** The runs forked from this one, by the step they forked at (forks.ts). */
  forks: ReadonlyMap<number, readonly RunMeta[]>;
  /** The steps the filter shows, in order (stepFilter.ts): the list draws these, one row each. */
  shown: readonly number[];
  filter: StepFilter;
  onFilter: (filter: StepFilter) => void;
  /** Whether a search is active (the "search hits" filter needs one). */
  searching: boolean;
  /** Whether the player is moving the selection (App holds it: the p key toggles it). */
  playing: boolean;
  onPlaying: (playing: boolean) => void;
}

export function Timeline(props: TimelineProps) {
  const { run, selected } = props;
  const box = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);
  const frame = useRef(0);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setHeight(el.clientHeight));
    observer.observe(el);
    setHeight(el.clientHeight);
    return () => observer.disconnect();
  }, []);

  // keep the selected row in view (keyboard moves, deep links, search hits)
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const at = positionOf(props.shown, selected);
    if (props.shown[at] !== selected) return setTop(el.scrollTop); // the filter hides it
    const y = at * ROW_HEIGHT;
    if (y < el.scrollTop) el.scrollTop = y;
    else if (y + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = y + ROW_HEIGHT - el.clientHeight;
    setTop(el.scrollTop);
  }, [selected, run.key, props.shown]);

  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const [speed, setSpeed] = useState<Speed>(1);
  usePlayer(props, speed);

  const onScroll = (): void => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => setTop(box.current?.scrollTop ?? 0));
  };

  const { shown } = props;
  const count = shown.length;
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
  const { t0, t1 } = span(run);
  const scale = t1 > t0 ? 100 / (t1 - t0) : 0;
  const rows = [];
  for (let row = first; row < last; row++) {
    const i = shown[row]!;
    const s = run.steps[i]!;
    const start = (s.timestamp - t0) * scale;
    const took = s.end !== null ? s.end - s.timestamp : null;
    const width = took !== null ? Math.max(0.6, took * scale) : 0;
    const classes = [
      "row",
      `t-${s.type}`,
      i === selected ? "selected" : "",
      s.nested ? "nested" : "",
      s.error ? "error" : "",
      i === run.forkAt ? "fork-point" : "",
      props.forks.has(i) ? "forked-here" : "",
      props.hits.has(i) ? "hit" : "",
      props.broken.has(i) ? "broken" : "",
    ].join(" ");
    rows.push(
      <div
        key={i}
        id={`step-row-${i}`}
        role="option"
        aria-selected={i === selected}
        aria-posinset={row + 1}
        aria-setsize={count}
        class={classes}
        style={{ top: `${row * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` }}
        data-step={i}
        onClick={() => props.onSelect(i)}
      >
        <span class="idx">{i}</span>
        <span class="time">{elapsed(s.timestamp - t0)}</span>
        <span class={`chip c-${s.type}`}>{TYPE_LABEL[s.type]}</span>
        <span class="summary" title={s.text}>
          {props.broken.has(i) && (
            <span class="mark broken-mark" title="the hash chain breaks here">
              chain
            </span>
          )}
          {i === run.forkAt && <span class="mark fork-mark">fork point</span>}
          {props.forks.has(i) && (
            <span
              class="mark fork-mark"
              title={`forked here: ${props.forks
                .get(i)!
                .map((c) => c.id)
                .join(", ")}`}
            >
              {props.forks.get(i)!.length === 1 ? "forked here" : `${props.forks.get(i)!.length} forks here`}
            </span>
          )}
          {s.text}
        </span>
        <span class="bar-cell" aria-hidden="true">
          {took !== null ? (
            <span class="bar" style={{ left: `${Math.min(start, 99.4)}%`, width: `${width}%` }} />
          ) : (
            <span class="tick" style={{ left: `${Math.min(start, 99.4)}%` }} />
          )}
        </span>
        <span class="took">{took !== null ? duration(took) : ""}</span>
      </div>,
    );
  }
  const { playing, onPlaying } = props;
  return (
    <div class="timeline-pane">
      <div class="player" role="toolbar" aria-label="Play-back">
        <button
          type="button"
          class={playing ? "btn small primary" : "btn small"}
          onClick={() => onPlaying(!playing)}
          disabled={count < 2}
          aria-label={
            playing ? "Pause the play-back (p)" : "Play the run at the recorded pace from the selected step (p)"
          }
          aria-keyshortcuts="p"
          data-testid="play"
          data-playing={playing}
        >
          {playing ? "Pause" : "Play"}
        </button>
        <label class="field inline">
          <span>speed</span>
          <select
            value={String(speed)}
            onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value;
              setSpeed(v === "max" ? "max" : (Number(v) as Speed));
            }}
            aria-label="Play-back speed"
            data-testid="speed"
          >
            {SPEEDS.map((s) => (
              <option key={s} value={String(s)}>
                {speedLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label class="field inline filter">
          <span>show</span>
          <select
            value={props.filter}
            onChange={(e) => props.onFilter((e.target as HTMLSelectElement).value as StepFilter)}
            aria-label="Steps to list"
            data-testid="filter"
          >
            {FILTERS.map((f) => (
              <option key={f.value} value={f.value} disabled={f.value === "hits" && !props.searching}>
                {f.label}
              </option>
            ))}
          </select>
        </label>
        {props.filter !== "all" && (
          <span class="muted filter-count" role="status" data-testid="filter-count">
            {count} of {run.steps.length}
          </span>
        )}
      </div>
      <div
        class="timeline"
        ref={box}
        onScroll={onScroll}
        role="listbox"
        tabIndex={0}
        aria-label={`Steps of run ${run.id} (j/k or arrow keys to move)`}
        aria-activedescendant={shown[positionOf(shown, selected)] === selected ? `step-row-${selected}` : undefined}
        data-testid="timeline"
      >
        <div class="spacer" style={{ height: `${count * ROW_HEIGHT}px` }}>
          {rows}
        </div>
      </div>
    </div>
  );
}

/**
 * The player's timer: while playing, waits on the selected step as long as stepDelay says,
 * then selects the next shown step (with a filter, the wait is the recorded gap to that
 * step). It remembers the step it moved to: a selection it did not make (a key, a click, a
 * search hit, the address, another run) pauses it. Played from the last shown step it
 * starts again at the first, and it stops on reaching the last.
 */
function usePlayer(props: TimelineProps, speed: Speed): void {
  const { run, selected, shown, playing, onPlaying, onSelect } = props;
  /** Where the player last was: the run and the step, null while paused. */
  const at = useRef<{ run: number; step: number } | null>(null);
  useEffect(() => {
    if (!playing) {
      at.current = null;
      return;
    }
    const last = shown[shown.length - 1] ?? -1;
    if (at.current === null) {
      // just started: from the selected step, or from the first when at the end
      at.current = { run: run.key, step: selected };
      if (selected >= last && shown.length > 1) {
        at.current.step = shown[0]!;
        onSelect(shown[0]!);
        return;
      }
    } else if (at.current.run !== run.key || at.current.step !== selected) {
      return onPlaying(false); // someone else moved
    }
    const next = moveIn(shown, selected, 1);
    const wait = next > selected ? stepDelay([run.steps[selected]!, run.steps[next]!], 0, speed) : undefined;
    if (wait === undefined) return onPlaying(false); // the last step: done
    const timer = setTimeout(() => {
      at.current = { run: run.key, step: next };
      onSelect(next);
    }, wait);
    return () => clearTimeout(timer);
  }, [playing, selected, run.key, speed, shown]);
  // leaving the run's view stops the play-back
  useEffect(() => () => onPlaying(false), []);
}
