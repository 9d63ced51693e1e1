/**
 * A sweep's matrix (`blackbox sweep`): a row per tool result of the parent, a column per
 * variant, each cell the child's outcome (its answer or failure, its grade) and a button
 * that opens the child run at its fork point.
 */
import type { SweepCellMeta, SweepMeta, ViewData } from "../model.js";
import { plural } from "./format.js";
import "./Sweep.css";

export interface SweepsProps {
  data: ViewData;
  onOpen: (run: number, step?: number) => void;
}

const STATUS: Record<SweepCellMeta["status"], string> = {
  answered: "ok",
  failed: "bad",
  error: "bad",
  skipped: "warn",
};

function Cell(props: { cell: SweepCellMeta; onOpen: SweepsProps["onOpen"] }) {
  const c = props.cell;
  const title = [
    `given: ${c.value}`,
    `${plural(c.steps, "step")}, ${plural(c.modelCalls, "model call")} past the fork point`,
    c.toolCalls.length ? `tools called: ${c.toolCalls.join(", ")}` : "no tool called",
    c.grade?.detail ? `grade: ${c.grade.detail}` : "",
    c.reused ? "reused from an earlier sweep" : "",
  ]
    .filter(Boolean)
    .join("\n");
  const body = (
    <>
      <span class="sweep-marks">
        <span class={`badge ${STATUS[c.status]}`}>{c.status}</span>
        {c.grade && <span class={`badge ${c.grade.pass ? "ok" : "bad"}`}>{c.grade.pass ? "pass" : "fail"}</span>}
        {c.reused && <span class="badge warn">reused</span>}
      </span>
      <span class="sweep-text">{c.text}</span>
    </>
  );
  return (
    <td class={`sweep-cell ${c.status}`} data-at={c.at} data-variant={c.variant} title={title}>
      {c.run !== null ? (
        <button
          type="button"
          class="sweep-open"
          aria-label={`Open the child forked at step ${c.at} with ${c.variant}: ${c.status}`}
          onClick={() => props.onOpen(c.run!, c.at)}
        >
          {body}
        </button>
      ) : (
        <div class="sweep-none">{body}</div>
      )}
    </td>
  );
}

function SweepTable(props: { sweep: SweepMeta; onOpen: SweepsProps["onOpen"] }) {
  const s = props.sweep;
  const width = s.variants.length;
  const how = `${s.continueWith === "script" ? "continued offline" : "continued live"}, tools run for real: ${
    s.toolsRun.length ? s.toolsRun.join(", ") : "none"
  }`;
  return (
    <section class="sweep" data-testid="sweep" aria-label={`Sweep ${s.file}`}>
      <h2>
        Sweep <code>{s.file}</code>
      </h2>
      <p class="sweep-sub">
        {plural(s.rows.length, "tool result")} x {plural(width, "variant")}, {how}
        {s.command ? (
          <>
            {" "}
            (<code>{s.command.join(" ")}</code>)
          </>
        ) : null}
        . Parent:{" "}
        {s.parent !== null ? (
          <button type="button" class="link" onClick={() => props.onOpen(s.parent!, 0)}>
            {s.parentFile}
          </button>
        ) : (
          <code>{s.parentFile}</code>
        )}
      </p>
      <div class="sweep-scroll">
        <table class="sweep-table">
          <thead>
            <tr>
              <th scope="col">Tool result</th>
              {s.variants.map((v) => (
                <th scope="col" key={v.name}>
                  {v.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {s.rows.map((r, i) => (
              <tr key={r.at}>
                <th scope="row" class="sweep-row" title={`recorded: ${r.recorded}`}>
                  {s.parent !== null ? (
                    <button type="button" class="link" onClick={() => props.onOpen(s.parent!, r.at)}>
                      step {r.at} {r.toolName}
                    </button>
                  ) : (
                    `step ${r.at} ${r.toolName}`
                  )}
                  <span class="sweep-input">{r.toolInput}</span>
                </th>
                {s.cells.slice(i * width, (i + 1) * width).map((c) => (
                  <Cell key={c.variant} cell={c} onOpen={props.onOpen} />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="sweep-summary">{s.summary}</p>
    </section>
  );
}

/** Every sweep given, one table each; nothing when there is none. */
export function Sweeps(props: SweepsProps) {
  const sweeps = props.data.sweeps ?? [];
  if (sweeps.length === 0) return null;
  return (
    <div class="sweeps">
      {sweeps.map((s) => (
        <SweepTable key={s.file} sweep={s} onOpen={props.onOpen} />
      ))}
    </div>
  );
}
