/**
 * Many runs: the fork tree across the given cassettes (a parent, where each child forked
 * from it, the children's children), and the runs as given: one list a cassette or folder.
 * A run folder with lanes (parallel conversations; not written yet) is drawn lane by lane.
 */
import type { RunGroup, RunMeta, ViewData } from "../model.js";
import { bytes, isoTime, plural, TYPE_LABEL } from "./format.js";
import type { TreeNode } from "./forks.js";

export interface RunsProps {
  data: ViewData;
  current: number;
  onOpen: (run: number, step?: number) => void;
  onCompare: (a: number, b: number) => void;
  /** The fork forest of data.runs (App works it out once, forks.ts). */
  forest: readonly TreeNode[];
}

function Outcome(props: { run: RunMeta }) {
  const o = props.run.outcome;
  if (o.status === "success") return <span class="badge ok">success</span>;
  if (o.status === "error")
    return (
      <span class="badge bad" title={o.error}>
        error: {o.reason}
      </span>
    );
  return <span class="badge warn">no outcome</span>;
}

export function Chain(props: { run: RunMeta }) {
  const v = props.run.verify;
  if (v.ok) return <span class="badge ok">chain verified</span>;
  const first = v.problems.find((p) => p.stepIndex !== null)?.stepIndex;
  return (
    <span class="badge bad">
      {first === undefined || first === null ? "fails verify" : `chain breaks at step ${first}`}
    </span>
  );
}

function TreeItem(props: RunsProps & { node: TreeNode; parent: RunMeta | null; level: number }) {
  const { node, parent } = props;
  const run = node.run;
  const at = run.forkAt;
  const atType = parent && at !== null ? parent.steps[at]?.type : undefined;
  return (
    <li
      role="treeitem"
      aria-level={props.level}
      aria-expanded={node.children.length > 0 ? true : undefined}
      aria-label={`run ${run.id}`}
      data-run-id={run.id}
      class={run.key === props.current ? "current" : ""}
    >
      <div class="node">
        <button type="button" class="link" onClick={() => props.onOpen(run.key)}>
          {run.id}
        </button>
        {parent && (
          <span class="fork-at" data-testid="fork-at">
            forked at step {at ?? "?"}
            {atType ? ` (${TYPE_LABEL[atType]})` : ""}
          </span>
        )}
        {!parent && run.parentId !== null && (
          <span class="note">
            forked from {run.parentId}
            {at !== null ? ` at step ${at}` : ""} (not loaded)
          </span>
        )}
        <span class="muted">{plural(run.steps.length, "step")}</span>
        <Outcome run={run} />
        <Chain run={run} />
        {parent && (
          <span class="node-actions">
            <button type="button" class="btn small" onClick={() => props.onOpen(run.key, at ?? 0)}>
              Open at the fork point
            </button>
            <button
              type="button"
              class="btn small"
              onClick={() => props.onCompare(parent.key, run.key)}
              aria-label={`Compare ${run.id} with its parent ${parent.id}`}
            >
              Compare with parent
            </button>
          </span>
        )}
      </div>
      {node.children.length > 0 && (
        <ul role="group">
          {node.children.map((c) => (
            <TreeItem {...props} key={c.run.key} node={c} parent={run} level={props.level + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}

function GroupView(props: RunsProps & { group: RunGroup }) {
  const { group, data } = props;
  const row = (key: number) => {
    const run = data.runs[key]!;
    return (
      <tr key={key} class={key === props.current ? "current" : ""}>
        <td>
          <button type="button" class="link" onClick={() => props.onOpen(key)}>
            {run.id}
          </button>
        </td>
        <td>
          <code>{run.file}</code>
        </td>
        <td class="num">{run.steps.length}</td>
        <td>{isoTime(run.createdAt)}</td>
        <td>
          <Outcome run={run} />
        </td>
        <td>
          <Chain run={run} />
        </td>
        <td class="num">{bytes(run.bytes)}</td>
      </tr>
    );
  };
  const table = (keys: number[]) => (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">run</th>
            <th scope="col">file</th>
            <th scope="col">steps</th>
            <th scope="col">created</th>
            <th scope="col">outcome</th>
            <th scope="col">hash chain</th>
            <th scope="col">size</th>
          </tr>
        </thead>
        <tbody>{keys.map(row)}</tbody>
      </table>
    </div>
  );
  return (
    <section class="section" aria-label={`${group.kind} ${group.path}`}>
      <div class="section-head">
        <h3>
          {group.kind === "folder" ? "Folder" : "Cassette"} <code>{group.path}</code>
        </h3>
        <span class="muted">{plural(group.runs.length, "run")}</span>
      </div>
      {group.lanes === null ? (
        table(group.runs)
      ) : (
        <div class="lanes">
          {group.lanes.map((lane) => (
            <div class="lane" key={lane.name}>
              <h4>{lane.name}</h4>
              {table(lane.runs)}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

export function Runs(props: RunsProps) {
  const { data, forest } = props;
  return (
    <div class="runs" data-testid="runs-view">
      <section class="section">
        <div class="section-head">
          <h2>Fork tree</h2>
          <span class="muted">which run was forked from which, and at which step</span>
        </div>
        <ul role="tree" class="tree" aria-label="Fork tree of the runs" data-testid="fork-tree">
          {forest.map((n) => (
            <TreeItem {...props} key={n.run.key} node={n} parent={null} level={1} />
          ))}
        </ul>
      </section>
      {data.groups.map((g, i) => (
        <GroupView {...props} key={i} group={g} />
      ))}
      {data.skipped.length > 0 && (
        <section class="section">
          <h3>Skipped files</h3>
          <ul>
            {data.skipped.map((s) => (
              <li key={s.file}>
                <code>{s.file}</code>: {s.reason}
              </li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}
