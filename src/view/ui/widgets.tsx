/** Small pieces used across the views: copy buttons, JSON and text blocks that cut long values. */
import { useState } from "preact/hooks";
import type { ComponentChildren } from "preact";
import { prettyJson } from "./format.js";

/** Copies text to the clipboard (the Clipboard API, or a selected textarea where it is not allowed). */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    if (!ok) throw new Error("the browser refused to copy");
  }
}

export function CopyButton(props: { text: () => string; label: string; title?: string }) {
  const [state, setState] = useState<"idle" | "done" | "failed">("idle");
  const click = (): void => {
    copyText(props.text()).then(
      () => setState("done"),
      () => setState("failed"),
    );
    setTimeout(() => setState("idle"), 1500);
  };
  return (
    <button type="button" class="btn small" onClick={click} aria-label={props.title ?? props.label}>
      {state === "done" ? "Copied" : state === "failed" ? "Copy failed" : props.label}
      <span class="sr-only" aria-live="polite">
        {state === "done" ? "copied to the clipboard" : ""}
      </span>
    </button>
  );
}

const SHOW = 60_000;

/** A value as pretty JSON, cut at 60 000 characters until asked for all of it. */
export function JsonBlock(props: { value: unknown; label?: string; error?: boolean }) {
  const [all, setAll] = useState(false);
  const { text, cut } = prettyJson(props.value, all ? Infinity : SHOW);
  return (
    <div class={`json${props.error ? " error" : ""}`}>
      <pre aria-label={props.label} tabIndex={0}>
        {text}
      </pre>
      {cut > 0 && (
        <button type="button" class="btn small" onClick={() => setAll(true)}>
          Show all ({Math.round(cut / 1024)} KB)
        </button>
      )}
    </div>
  );
}

/** Text as written (a message, an answer), cut at 60 000 characters until asked for all of it. */
export function TextBlock(props: { text: string; class?: string }) {
  const [all, setAll] = useState(false);
  const long = props.text.length > SHOW && !all;
  return (
    <div class={`text ${props.class ?? ""}`}>
      <pre>{long ? props.text.slice(0, SHOW) : props.text}</pre>
      {long && (
        <button type="button" class="btn small" onClick={() => setAll(true)}>
          Show all ({Math.round(props.text.length / 1024)} KB)
        </button>
      )}
    </div>
  );
}

export function Section(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="section">
      <div class="section-head">
        <h3>{props.title}</h3>
        {props.actions && <div class="actions">{props.actions}</div>}
      </div>
      {props.children}
    </section>
  );
}
