/**
 * Two runs side by side from their first divergence: the divergence `blackbox diff`
 * reports (diffTraces, computed when the page was built), the steps before it folded,
 * then both runs step by step with the divergent step open on each side.
 */
import { useState } from "preact/hooks";
import type { PairDiff, RunMeta, ViewData } from "../model.js";
import { TYPE_LABEL, plural } from "./format.js";
import type { RunPayloads } from "./store.js";
import { JsonBlock } from "./widgets.js";

export interface CompareProps {
  data: ViewData;
  a: number;
  b: number;
  payloads: RunPayloads[];
  ready: boolean;
  onPick: (a: number, b: number) => void;
  onOpen: (run: number, step: number) => void;
}

/** The pair's divergence as seen from (a, b), whichever order it was computed in. */
export function pairOf(data: ViewData, a: number, b: number): PairDiff | undefined {
  const direct = data.pairs.find((p) => p.a === a && p.b === b);
  if (direct) return direct;
  const other = data.pairs.find((p) => p.a === b && p.b === a);
  if (!other) return undefined;
  const d = other.divergence;
  return {
    a,
    b,
    outcomeSame: other.outcomeSame,
    divergence:
      d === null
        ? null
        : {
            ...d,
            typeA: d.typeB,
            typeB: d.typeA,
            a: d.b,
            b: d.a,
            kind: d.kind === "only_in_a" ? "only_in_b" : d.kind === "only_in_b" ? "only_in_a" : "changed",
            reason: "",
          },
  };
}

/** The sentence for a divergence seen from the other side (diffTraces wrote the first one). */
function reasonOf(d: NonNullable<PairDiff["divergence"]>, ra: RunMeta, rb: RunMeta): string {
  if (d.kind === "changed") return `step ${d.index} differs at ${d.path}: ${d.a} vs ${d.b}`;
  const [inRun, other] = d.kind === "only_in_a" ? ["A", rb] : ["B", ra];
  return `step ${d.index} exists only in ${inRun}; ${inRun === "A" ? "B" : "A"} has ${plural(other.steps.length, "step")}`;
}

const CONTEXT = 2;
const PAGE = 100;

function Picker(props: { data: ViewData; value: number; label: string; onChange: (v: number) => void }) {
  return (
    <label class="field inline">
      <span>{props.label}</span>
      <select
        value={String(props.value)}
        onChange={(e) => props.onChange(Number((e.target as HTMLSelectElement).value))}
      >
        {props.data.runs.map((r) => (
          <option key={r.key} value={String(r.key)}>
            {r.id} ({r.file})
          </option>
        ))}
      </select>
    </label>
  );
}

function Cell(props: {
  side: "A" | "B";
  run: RunMeta;
  i: number;
  divergent: boolean;
  payloads: RunPayloads;
  ready: boolean;
  onOpen: (run: number, step: number) => void;
}) {
  const s = props.run.steps[props.i];
  if (!s) return <div class="cell missing">no step {props.i}</div>;
  let payload: unknown;
  if (props.divergent && props.ready) {
    try {
      payload = props.payloads.payload(props.i);
    } catch (error) {
      payload = `cannot read: ${(error as Error).message}`;
    }
  }
  return (
    <div class={`cell${props.divergent ? " divergent" : ""}${s.error ? " error" : ""}`} data-step={props.i}>
      <button
        type="button"
        class="cell-head link"
        onClick={() => props.onOpen(props.run.key, props.i)}
        aria-label={`Open step ${props.i} of ${props.run.id}`}
      >
        <span class="side" aria-hidden="true">
          {props.side}
        </span>
        <span class="idx">{props.i}</span>
        <span class={`chip c-${s.type}`}>{TYPE_LABEL[s.type]}</span>
        <span class="summary">{s.text}</span>
      </button>
      {props.divergent && payload !== undefined && (
        <JsonBlock value={payload} label={`Step ${props.i} of ${props.run.id}`} />
      )}
    </div>
  );
}

export function Compare(props: CompareProps) {
  const { data, a, b } = props;
  const [shown, setShown] = useState(PAGE);
  if (data.runs.length < 2)
    return <div class="compare empty">Comparing needs two runs: pass two cassettes or a folder.</div>;
  const ra = data.runs[a]!;
  const rb = data.runs[b]!;
  const pair = a === b ? undefined : pairOf(data, a, b);
  const d = pair?.divergence ?? null;
  const from = d ? Math.max(0, d.index - CONTEXT) : 0;
  const to = Math.min(Math.max(ra.steps.length, rb.steps.length), from + shown);
  const rows = [];
  for (let i = from; i < to; i++) {
    rows.push(
      <div class="pair-row" key={i} role="row">
        <Cell
          side="A"
          run={ra}
          i={i}
          divergent={d?.index === i}
          payloads={props.payloads[a]!}
          ready={props.ready}
          onOpen={props.onOpen}
        />
        <Cell
          side="B"
          run={rb}
          i={i}
          divergent={d?.index === i}
          payloads={props.payloads[b]!}
          ready={props.ready}
          onOpen={props.onOpen}
        />
      </div>,
    );
  }
  return (
    <div class="compare" data-testid="compare-view">
      <div class="pickers">
        <Picker data={data} label="A" value={a} onChange={(v) => props.onPick(v, b)} />
        <button type="button" class="btn small" onClick={() => props.onPick(b, a)} aria-label="Swap A and B">
          Swap
        </button>
        <Picker data={data} label="B" value={b} onChange={(v) => props.onPick(a, v)} />
      </div>
      {a === b ? (
        <p class="note">Pick two different runs.</p>
      ) : !pair ? (
        <p class="note" role="status">
          These two runs are in different fork trees, and with this many runs the page compares only runs of one tree.
          Compare them with{" "}
          <code>
            blackbox diff {ra.file} {rb.file}
          </code>
          , or pass just these two cassettes to blackbox view.
        </p>
      ) : (
        <div class="verdict" role="status" data-testid="divergence">
          {d === null ? (
            <p>
              <strong>Same</strong>: {plural(ra.steps.length, "step")} with the same content.
            </p>
          ) : (
            <>
              <p>
                <strong>First divergence at step {d.index}</strong> (
                {d.typeA === d.typeB ? TYPE_LABEL[d.typeA!] : `${d.typeA ?? "none"} in A, ${d.typeB ?? "none"} in B`})
              </p>
              {d.kind === "changed" && d.path !== "" && (
                <dl class="kv">
                  <dt>at</dt>
                  <dd>
                    <code data-testid="divergence-path">{d.path}</code>
                  </dd>
                  <dt>A</dt>
                  <dd>
                    <code>{d.a}</code>
                  </dd>
                  <dt>B</dt>
                  <dd>
                    <code>{d.b}</code>
                  </dd>
                </dl>
              )}
              <p class="muted">{d.reason !== "" ? d.reason : reasonOf(d, ra, rb)}</p>
            </>
          )}
          <p>outcome: {pair.outcomeSame ? "the same" : <strong class="bad-text">differs</strong>}</p>
        </div>
      )}
      {pair && (
        <div class="side-by-side" role="table" aria-label={`${ra.id} and ${rb.id} side by side`}>
          <div class="pair-row head" role="row">
            <div class="cell" role="columnheader">
              A: {ra.id}
            </div>
            <div class="cell" role="columnheader">
              B: {rb.id}
            </div>
          </div>
          {from > 0 && (
            <div class="folded" role="row">
              {from === 1 ? "step 0 is" : `steps 0-${from - 1} are`} the same in both runs
            </div>
          )}
          {rows}
          {to < Math.max(ra.steps.length, rb.steps.length) && (
            <button type="button" class="btn small" onClick={() => setShown(shown + PAGE)}>
              Show {PAGE} more steps
            </button>
          )}
        </div>
      )}
    </div>
  );
}
