/**
 * One step in full: a model input as the conversation it holds (the messages new since
 * the previous model input marked), a model output's text and tool calls, a tool call's
 * input, a tool result (errors in red) with its edit-and-fork panel, a terminal event.
 * Each payload can be copied as JSON.
 *
 * Over ~300 lines: one small component per step type, kept beside each other because they
 * share the payload widgets and read as one table of what each step shows.
 */
import { Fragment } from "preact";
import { useMemo, useState } from "preact/hooks";
import type { RunMeta, ViewData } from "../model.js";
import { ForkEditor } from "./ForkEditor.js";
import { duration, elapsed, isObj, plural, span, TYPE_LABEL, type Obj } from "./format.js";
import type { RunPayloads } from "./store.js";
import { CopyButton, JsonBlock, Section, TextBlock } from "./widgets.js";

export interface StepDetailProps {
  data: ViewData;
  run: RunMeta;
  step: number;
  payloads: RunPayloads;
  ready: boolean;
  onSelect: (step: number) => void;
  /** The loaded runs forked from this one at this step. */
  forks: readonly RunMeta[];
  /** The loaded run this one was forked from, if any. */
  parent: RunMeta | undefined;
}

const SHOW_MESSAGES = 40;

/** The address of a run's step, as the page reads it (App.tsx parseHash). */
const stepLink = (run: number, step: number): string => `#run-${run}-step-${step}`;

export function StepDetail(props: StepDetailProps) {
  const { run, step } = props;
  const meta = run.steps[step];
  if (!meta) return <div class="detail empty">This run has no steps.</div>;
  if (!props.ready) return <div class="detail empty">Reading the run's payloads...</div>;
  let payload: unknown;
  try {
    payload = props.payloads.payload(step);
  } catch (error) {
    return (
      <div class="detail empty error" role="alert">
        Step {step} cannot be read: {(error as Error).message}
      </div>
    );
  }
  const { t0 } = span(run);
  const problems = run.verify.problems.filter((p) => p.stepIndex === step);
  const link = `${location.href.split("#")[0]}#run-${run.key}-step-${step}`;
  return (
    <div class="detail" data-testid="step-detail" data-step={step} aria-label={`Step ${step}`}>
      <div class="detail-head">
        <h2>
          Step {step} <span class={`chip c-${meta.type}`}>{TYPE_LABEL[meta.type]}</span>
        </h2>
        <div class="facts">
          <span>{elapsed(meta.timestamp - t0)}</span>
          {meta.end !== null && <span>took {duration(meta.end - meta.timestamp)}</span>}
          <span title={meta.hash}>hash {meta.hash.slice(0, 12)}</span>
          <span>{Math.max(1, Math.round(meta.size / 1024))} KB</span>
        </div>
        <div class="actions">
          <CopyButton
            label="Copy JSON"
            title={`Copy step ${step}'s payload as JSON`}
            text={() => JSON.stringify(payload, null, 2)}
          />
          <CopyButton label="Copy link" title={`Copy a link to step ${step}`} text={() => link} />
        </div>
      </div>
      {problems.length > 0 && (
        <div class="problems" role="alert">
          <strong>The hash chain breaks at this step.</strong>
          <ul>
            {problems.map((p) => (
              <li key={p.path}>
                <code>{p.path}</code>: {p.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {step === run.forkAt && (
        <p class="note fork-note" data-testid="fork-note">
          This run was forked from{" "}
          {props.parent ? (
            <a class="link" href={stepLink(props.parent.key, step)} data-testid="fork-parent">
              {props.parent.id} at step {step}
            </a>
          ) : (
            <code>{run.parentId}</code>
          )}{" "}
          here: the steps before it are copied from the parent.
        </p>
      )}
      {props.forks.length > 0 && (
        <p class="note fork-note" data-testid="forks-here">
          forks here:{" "}
          {props.forks.map((c, i) => (
            <Fragment key={c.key}>
              {i > 0 && ", "}
              <a class="link" href={stepLink(c.key, step)} data-testid="fork-child" data-run-id={c.id}>
                {c.id}
              </a>
            </Fragment>
          ))}{" "}
          (each opens at its fork point)
        </p>
      )}
      <Body {...props} payload={payload} />
    </div>
  );
}

function Body(props: StepDetailProps & { payload: unknown }) {
  const p = isObj(props.payload) ? props.payload : {};
  switch (props.run.steps[props.step]!.type) {
    case "model_input":
      return <ModelInput {...props} p={p} />;
    case "model_output":
      return <ModelOutput p={p} />;
    case "tool_call":
      return (
        <Section
          title={`${String(p.toolName)} (${String(p.toolCallId)})`}
          actions={<CopyJson value={p.toolInput} what="input" />}
        >
          <JsonBlock value={p.toolInput} label="Tool input" />
        </Section>
      );
    case "tool_result":
      return <ToolResult {...props} p={p} />;
    default:
      return <Metadata p={p} />;
  }
}

function CopyJson(props: { value: unknown; what: string }) {
  return (
    <CopyButton
      label="Copy"
      title={`Copy the ${props.what} as JSON`}
      text={() => JSON.stringify(props.value, null, 2)}
    />
  );
}

/** The index of the model_input before `step`, or -1. */
function previousModelInput(run: RunMeta, step: number): number {
  for (let i = step - 1; i >= 0; i--) if (run.steps[i]!.type === "model_input") return i;
  return -1;
}

function ModelInput(props: StepDetailProps & { p: Obj }) {
  const { p, run, step, payloads } = props;
  const messages = Array.isArray(p.messages) ? p.messages : [];
  const tools = Array.isArray(p.tools) ? p.tools : [];
  const prev = previousModelInput(run, step);
  // a message is new when the previous model input did not hold it
  const isNew = useMemo(() => {
    if (prev < 0) return messages.map(() => true);
    let before: unknown;
    try {
      before = payloads.payload(prev);
    } catch {
      return messages.map(() => false);
    }
    const seen = new Set(
      (isObj(before) && Array.isArray(before.messages) ? before.messages : []).map((m) => JSON.stringify(m)),
    );
    return messages.map((m) => !seen.has(JSON.stringify(m)));
  }, [run.key, step, prev]);
  const [all, setAll] = useState(false);
  const newCount = isNew.filter(Boolean).length;
  const hidden = all ? 0 : Math.max(0, messages.length - SHOW_MESSAGES);
  return (
    <>
      <Section title="Call">
        <dl class="kv">
          <dt>model</dt>
          <dd>{typeof p.model === "string" ? p.model : <em>not recorded</em>}</dd>
          {isObj(p.params) &&
            Object.entries(p.params).map(([k, v]) => (
              <Fragment key={k}>
                <dt>{k}</dt>
                <dd>
                  <code>{JSON.stringify(v)}</code>
                </dd>
              </Fragment>
            ))}
          <dt>tools</dt>
          <dd>{tools.length === 0 ? "none" : tools.map((t) => (isObj(t) ? String(t.name) : "?")).join(", ")}</dd>
        </dl>
      </Section>
      {typeof p.systemPrompt === "string" && (
        <Section title="System prompt">
          <TextBlock text={p.systemPrompt} />
        </Section>
      )}
      <Section
        title={`Conversation: ${plural(messages.length, "message")}, ${newCount} new`}
        actions={<CopyJson value={messages} what="messages" />}
      >
        {hidden > 0 && (
          <button type="button" class="btn small" onClick={() => setAll(true)}>
            Show {plural(hidden, "earlier message")}
          </button>
        )}
        <ol class="messages" start={hidden + 1}>
          {messages.map((m, i) => (i < hidden ? null : <MessageView key={i} m={m} isNew={isNew[i] ?? false} />))}
        </ol>
      </Section>
      {tools.length > 0 && (
        <details class="section">
          <summary>Tool definitions ({tools.length})</summary>
          <JsonBlock value={tools} label="Tool definitions" />
        </details>
      )}
    </>
  );
}

function MessageView(props: { m: unknown; isNew: boolean }) {
  const m = isObj(props.m) ? props.m : {};
  const role = String(m.role ?? "?");
  const parts =
    typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : [];
  return (
    <li class={`message role-${role}${props.isNew ? " new" : ""}`} data-new={props.isNew ? "true" : "false"}>
      <div class="message-head">
        <span class="role">{role}</span>
        {props.isNew && <span class="mark new-mark">new</span>}
      </div>
      {parts.map((part, i) => (
        <Part key={i} part={part} />
      ))}
    </li>
  );
}

function Part(props: { part: unknown }) {
  const part = isObj(props.part) ? props.part : {};
  if (part.type === "text") return <TextBlock text={String(part.text ?? "")} />;
  if (part.type === "tool_use")
    return (
      <div class="part tool-use">
        <div class="part-head">
          calls <strong>{String(part.toolName)}</strong> <code>{String(part.toolCallId)}</code>
        </div>
        <JsonBlock value={part.toolInput} label="Tool input" />
      </div>
    );
  if (part.type === "tool_result") {
    const error = "error" in part;
    return (
      <div class={`part tool-result${error ? " error" : ""}`}>
        <div class="part-head">
          {error ? "error from" : "result of"} <strong>{String(part.toolName)}</strong>{" "}
          <code>{String(part.toolCallId)}</code>
        </div>
        {error ? (
          <TextBlock text={String(part.error)} class="error" />
        ) : (
          <JsonBlock value={part.result} label="Tool result" />
        )}
      </div>
    );
  }
  return <JsonBlock value={props.part} label="Message part" />;
}

function ModelOutput(props: { p: Obj }) {
  const { p } = props;
  const calls =
    p.type === "tool_call"
      ? [{ toolCallId: p.toolCallId, toolName: p.toolName, toolInput: p.toolInput }]
      : Array.isArray(p.calls)
        ? (p.calls as Obj[])
        : [];
  return (
    <>
      {typeof p.text === "string" && (
        <Section
          title={p.type === "final_answer" ? "Final answer" : "Text"}
          actions={<CopyJson value={p.text} what="text" />}
        >
          <TextBlock text={p.text} />
        </Section>
      )}
      {calls.length > 0 && (
        <Section title={`Tool calls (${calls.length})`} actions={<CopyJson value={calls} what="tool calls" />}>
          {calls.map((c, i) => (
            <div class="part tool-use" key={i}>
              <div class="part-head">
                <strong>{String(c.toolName)}</strong> <code>{String(c.toolCallId)}</code>
              </div>
              <JsonBlock value={c.toolInput} label="Tool input" />
            </div>
          ))}
        </Section>
      )}
      {typeof p.stop === "string" && <p class="note">stop: {p.stop}</p>}
    </>
  );
}

function ToolResult(props: StepDetailProps & { p: Obj }) {
  const { p, run, step } = props;
  const error = "error" in p;
  const [editing, setEditing] = useState(false);
  const start = error ? JSON.stringify(String(p.error)) : (JSON.stringify(p.result, null, 2) ?? "null");
  return (
    <>
      <Section
        title={`${error ? "Error from" : "Result of"} ${String(p.toolName)} (${String(p.toolCallId)})`}
        actions={
          <>
            <CopyJson value={error ? p.error : p.result} what={error ? "error" : "result"} />
            <button
              type="button"
              class="btn small primary"
              aria-expanded={editing}
              onClick={() => setEditing(!editing)}
              data-testid="edit-result"
            >
              {editing ? "Close the editor" : "Edit and fork"}
            </button>
          </>
        }
      >
        {error ? (
          <TextBlock text={String(p.error)} class="error" />
        ) : (
          <JsonBlock value={p.result} label="Tool result" />
        )}
      </Section>
      {editing && <ForkEditor key={`${run.key}:${step}`} data={props.data} run={run} step={step} initial={start} />}
    </>
  );
}

function Metadata(props: { p: Obj }) {
  const { p } = props;
  const failed = p.event === "run_failed";
  return (
    <Section
      title={failed ? "The run failed" : String(p.event ?? "metadata")}
      actions={<CopyJson value={p} what="event" />}
    >
      <JsonBlock value={p} label="Event" error={failed} />
    </Section>
  );
}
