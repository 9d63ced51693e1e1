/**
 * The run's steps as a list that draws only the rows in view (a run of 100 000 steps
 * scrolls like one of ten): index, time since the first step, type, what the step holds,
 * and its bar in the waterfall (a model call from its input to its output, a tool call
 * from its call to its result).
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { RunMeta } from "../model.js";
import { duration, elapsed, span, TYPE_LABEL } from "./format.js";
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
  return (
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
  );
}
