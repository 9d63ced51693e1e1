/**
 * Writes a big, realistic, hash-valid cassette for the viewer's bench and its big-run
 * test: a coding agent that reads files for hours. Each model input carries the system
 * prompt and the last messages of the conversation (a context window that slides), each
 * tool result is a file of a few KB; the run ends with a final answer. One tool result
 * in the middle holds the word "needle-in-the-haystack", for search.
 *
 *   node bench/view-cassette.mjs <out.json> <megabytes>
 *
 * Build first (npm run build): it uses dist/'s TraceBuilder and saveTrace.
 */
import { statSync } from "node:fs";
import { saveTraceSync } from "../dist/store/index.js";
import { TraceBuilder } from "../dist/trace/builder.js";
import { cassetteText } from "../dist/store/serialize.js";

const EMPTY = cassetteText({ steps: [] }).length;

const WORDS =
  "the agent reads a file and writes a patch for every module in the tree while tests run again after each change so the build stays green and the review is short".split(
    " ",
  );
const WINDOW = 12;
const FILE_CHARS = 1500;

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(rand, chars) {
  const out = [];
  let n = 0;
  while (n < chars) {
    const w = WORDS[Math.floor(rand() * WORDS.length)];
    out.push(w);
    n += w.length + 1;
    if (rand() < 0.08) out.push("\n");
  }
  return out.join(" ");
}

/** A trace of about `bytes` bytes once saved (2-space indented JSON). */
export function bigTrace(bytes, id = "big") {
  const rand = random(42);
  const t0 = 1767225600000;
  let now = t0;
  const b = new TraceBuilder({ id, createdAt: t0 });
  const tools = [
    {
      name: "read_file",
      description: "Read a file of the repository.",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ];
  const systemPrompt = "You are a careful coding agent. Read before you write.";
  const history = [{ role: "user", content: "Review every module and summarise what each one does." }];
  let size = 0;
  const add = (type, payload, ms) => {
    now += ms;
    b.append(type, payload, now);
    // the step as saveTrace writes it (src/store/serialize.ts), with the separator after it
    size += cassetteText({ steps: [b.last] }).length - EMPTY + 2;
  };
  // the rounds before the middle one, so that the needle lands half-way
  let needleAt = -1;
  for (let round = 0; size < bytes * 1.005; round++) {
    const callId = `call-${round}`;
    const path = `src/module-${round % 400}/file-${round}.ts`;
    add(
      "model_input",
      {
        systemPrompt,
        model: "claude-sonnet-4-5",
        params: { maxTokens: 4096, temperature: 0 },
        tools,
        messages: history.slice(-WINDOW),
      },
      20 + Math.floor(rand() * 80),
    );
    const thought = text(rand, 120);
    add(
      "model_output",
      {
        type: "tool_calls",
        text: thought,
        calls: [{ toolCallId: callId, toolName: "read_file", toolInput: { path } }],
      },
      800 + Math.floor(rand() * 1700),
    );
    add("tool_call", { toolCallId: callId, toolName: "read_file", toolInput: { path } }, 2);
    let content = text(rand, FILE_CHARS);
    if (needleAt < 0 && size > bytes / 2) {
      needleAt = b.steps.length;
      content = `// needle-in-the-haystack\n${content}`;
    }
    const failed = round % 97 === 13;
    add(
      "tool_result",
      failed
        ? { toolCallId: callId, toolName: "read_file", error: `ENOENT: no such file ${path}` }
        : { toolCallId: callId, toolName: "read_file", result: { path, content } },
      50 + Math.floor(rand() * 350),
    );
    history.push(
      {
        role: "assistant",
        content: [
          { type: "text", text: thought },
          { type: "tool_use", toolCallId: callId, toolName: "read_file", toolInput: { path } },
        ],
      },
      {
        role: "user",
        content: [
          failed
            ? { type: "tool_result", toolCallId: callId, toolName: "read_file", error: `ENOENT: no such file ${path}` }
            : { type: "tool_result", toolCallId: callId, toolName: "read_file", result: { path, content } },
        ],
      },
    );
  }
  add(
    "model_input",
    {
      systemPrompt,
      model: "claude-sonnet-4-5",
      params: { maxTokens: 4096, temperature: 0 },
      tools,
      messages: history.slice(-WINDOW),
    },
    30,
  );
  add("model_output", { type: "final_answer", text: "Every module is summarised above." }, 1500);
  add("metadata", { event: "run_completed", status: "success", result: "Every module is summarised above." }, 1);
  return { trace: b.trace, needleAt };
}

/** Writes the cassette; returns its size in bytes, its step count and the needle's step. */
export function writeBigCassette(file, megabytes) {
  const { trace, needleAt } = bigTrace(megabytes * 1_000_000);
  saveTraceSync(file, trace);
  return { bytes: statSync(file).size, steps: trace.steps.length, needleAt };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, mb] = process.argv.slice(2);
  if (!file || !Number(mb)) {
    console.error("usage: node bench/view-cassette.mjs <out.json> <megabytes>");
    process.exit(2);
  }
  console.log(JSON.stringify(writeBigCassette(file, Number(mb))));
}
