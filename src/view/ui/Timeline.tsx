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
    const y = selected * ROW_HEIGHT;
    if (y < el.scrollTop) el.scrollTop = y;
    else if (y + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = y + ROW_HEIGHT - el.clientHeight;
    setTop(el.scrollTop);
  }, [selected, run.key]);

  useEffect(() => () => cancelAnimationFrame(frame.current), []);

  const [speed, setSpeed] = useState<Speed>(1);
  usePlayer(props, speed);

  const onScroll = (): void => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => setTop(box.current?.scrollTop ?? 0));
  };

  const count = run.steps.length;
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
  const { t0, t1 } = span(run);
  const scale = t1 > t0 ? 100 / (t1 - t0) : 0;
  const rows = [];
  for (let i = first; i < last; i++) {
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
        aria-posinset={i + 1}
        aria-setsize={count}
        class={classes}
        style={{ top: `${i * ROW_HEIGHT}px`, height: `${ROW_HEIGHT}px` }}
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
      </div>
      <div
        class="timeline"
        ref={box}
        onScroll={onScroll}
        role="listbox"
        tabIndex={0}
        aria-label={`Steps of run ${run.id} (j/k or arrow keys to move)`}
        aria-activedescendant={count > 0 ? `step-row-${selected}` : undefined}
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
 * then selects the next. It remembers the step it moved to: a selection it did not make (a
 * key, a click, a search hit, the address, another run) pauses it. Played from the last
 * step it starts again at the first, and it stops on reaching the last.
 */
function usePlayer(props: TimelineProps, speed: Speed): void {
  const { run, selected, playing, onPlaying, onSelect } = props;
  /** Where the player last was: the run and the step, null while paused. */
  const at = useRef<{ run: number; step: number } | null>(null);
  useEffect(() => {
    if (!playing) {
      at.current = null;
      return;
    }
    const last = run.steps.length - 1;
    if (at.current === null) {
      // just started: from the selected step, or from the first when at the end
      at.current = { run: run.key, step: selected };
      if (selected >= last && last > 0) {
        at.current.step = 0;
        onSelect(0);
        return;
      }
    } else if (at.current.run !== run.key || at.current.step !== selected) {
      return onPlaying(false); // someone else moved
    }
    const wait = stepDelay(run.steps, selected, speed);
    if (wait === undefined) return onPlaying(false); // the last step: done
    const timer = setTimeout(() => {
      at.current = { run: run.key, step: selected + 1 };
      onSelect(selected + 1);
    }, wait);
    return () => clearTimeout(timer);
  }, [playing, selected, run.key, speed]);
  // leaving the run's view stops the play-back
  useEffect(() => () => onPlaying(false), []);
}
