/**
 * Edit a tool result in place and get the fork that continues from it: the exact
 * `blackbox fork` command (POSIX shell quoting) and the same fork as session options.
 */
import { useState } from "preact/hooks";
import type { RunMeta, ViewData } from "../model.js";
import { forkPlan } from "../forkCommand.js";
import { CopyButton } from "./widgets.js";

const COMMAND_KEY = "blackbox-view:agent-command";

function savedCommand(): string {
  try {
    return localStorage.getItem(COMMAND_KEY) ?? "";
  } catch {
    return "";
  }
}

export function ForkEditor(props: { data: ViewData; run: RunMeta; step: number; initial: string }) {
  const { run, step } = props;
  const [text, setText] = useState(props.initial);
  const [command, setCommand] = useState(run.demo ? "" : savedCommand());
  const plan = forkPlan({ cassette: run.file, at: step, text, command: run.demo ? "" : command });
  const placeholder = !run.demo && command.trim() === "";
  const cli = plan.ok ? (placeholder ? `${plan.cli} -- <command>` : plan.cli) : "";
  const onCommand = (value: string): void => {
    setCommand(value);
    try {
      localStorage.setItem(COMMAND_KEY, value);
    } catch {
      // a page that may not store keeps the command for this visit only
    }
  };
  return (
    <section
      class="section fork-editor"
      aria-label={`Edit the result of step ${step} and fork`}
      data-testid="fork-editor"
    >
      <div class="section-head">
        <h3>Edit and fork at step {step}</h3>
      </div>
      <label class="field">
        <span>The result the fork's agent gets instead (JSON)</span>
        <textarea
          value={text}
          spellcheck={false}
          rows={Math.min(16, Math.max(3, text.split("\n").length))}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
          aria-invalid={!plan.ok}
          aria-describedby={`fork-status-${step}`}
          data-testid="fork-value"
        />
      </label>
      {!run.demo && (
        <label class="field">
          <span>Your agent's command (what goes after --)</span>
          <input
            type="text"
            value={command}
            placeholder="node agent.mjs"
            spellcheck={false}
            onInput={(e) => onCommand((e.target as HTMLInputElement).value)}
            data-testid="fork-command"
          />
        </label>
      )}
      <div id={`fork-status-${step}`}>
        {plan.ok ? (
          <>
            <div class="section-head">
              <h4>
                Run this
                {props.data.cwd ? (
                  <>
                    {" "}
                    in <code>{props.data.cwd}</code>
                  </>
                ) : null}
              </h4>
              <div class="actions">
                <CopyButton label="Copy command" text={() => cli} />
              </div>
            </div>
            <pre class="command" data-testid="fork-cli">
              {cli}
            </pre>
            <p class="note">
              {run.demo
                ? "This run was recorded by the built-in demo agent: blackbox fork continues it on its own."
                : placeholder
                  ? "Type your agent's command above: blackbox fork runs it, answers the steps before the fork from the cassette, and continues live (or --script file.json offline)."
                  : "blackbox fork runs your agent, answers the steps before the fork from the cassette, and continues live (add --script file.json to continue offline)."}
            </p>
            <div class="section-head">
              <h4>Or in code</h4>
              <div class="actions">
                <CopyButton label="Copy code" text={() => plan.code} />
              </div>
            </div>
            <pre class="command" data-testid="fork-code">
              {plan.code}
            </pre>
          </>
        ) : (
          <p class="problem" role="alert" data-testid="fork-problem">
            {plan.problem.charAt(0).toUpperCase() + plan.problem.slice(1)}
          </p>
        )}
      </div>
    </section>
  );
}
