/**
 * The session's refusals of calls made out of order (a call after the run ended, calls that
 * overlap, a stream not read to its end), each saying what to do: a cassette is written in
 * call order, one conversation per session.
 */
import { type BlackboxError, BlackboxUnsupportedError, SessionError } from "../errors.js";

export function callAfterEnd(what: string, signal: string): SessionError {
  return new SessionError(
    `${what} after the run ended on ${signal}: the cassette was finished then, so this call is not recorded or replayed. Record the process again without sending it ${signal}.`,
  );
}

export function callAfterFinish(what: string): SessionError {
  return new SessionError(
    `${what} after finish(): the run is over. Create a new session (blackbox()) for another run.`,
  );
}

export function toolStillRunning(when: string): SessionError {
  return new SessionError(
    `a wrapped tool was still running when a model call ${when}; its steps could not be written in order. Await each wrapped tool before the next model call.`,
  );
}

export function modelCallBeforeStreamRead(): SessionError {
  return new SessionError(
    "a model call was made while a streamed model reply was not read to its end (still being read, or never read); its steps could not be written in order. Read each stream to its end before the next call: for await over its events, or await stream.finalMessage() / stream.finalChatCompletion().",
  );
}

export function overlappingModelCalls(): SessionError {
  return new SessionError(
    'overlapping model calls on one session: a model call was made while another was still running. A session given a cassette file records one conversation: give it a folder to record a run of several (out: "runs/NAME/", docs/conversations.md), await each call, or create one session per conversation.',
  );
}

export function toolDuringModelCall(name: string): SessionError {
  return new SessionError(
    `the wrapped tool "${name}" was called while a model call was still running; its steps could not be written in order. Await each model call before running the tools it asks for.`,
  );
}

export function toolDuringStream(name: string): SessionError {
  return new SessionError(
    `the wrapped tool "${name}" was called while a streamed model reply was still being read; its steps could not be written in order. Read the stream to its end (e.g. await stream.finalMessage()) before running tools.`,
  );
}

export function finishAfterEnd(signal: string, exitCode: number | undefined): SessionError {
  return new SessionError(
    `finish() after the run ended on ${signal}: Blackbox finished the session then, as at any process end (exit code ${exitCode}), so this finish() records nothing.`,
  );
}

export function finishTwice(): SessionError {
  return new SessionError(
    "finish() was already called for this session; a session records one run: create a new session (blackbox()) for the next run",
  );
}

export function finishBeforeStreamRead(): SessionError {
  return new SessionError(
    "finish() was called while a streamed model reply was not read to its end (still being read, or never read); nothing was written. Read each stream to its end before finish(): for await over its events, or await stream.finalMessage() / stream.finalChatCompletion().",
  );
}

export function finishInFlight(inFlight: number): SessionError {
  return new SessionError(
    `finish() was called while ${inFlight} model or tool call(s) were still running; nothing was written. Await every model and tool call before finish().`,
  );
}

/**
 * An in-code replay refused a call (it diverged), the agent caught the error and the process ended without
 * finish(): the process fails with that refusal, as the hook's replay does.
 */
export function divergedWithoutFinish(err: BlackboxError, cassette: string): Error {
  const error = new Error(
    `the replay of ${cassette} failed and the process ended without finish() (the agent caught the error): ${err.message.replace(/^\[blackbox\]\s*/, "")}`,
  );
  error.name = err.name;
  return error;
}

/** A provider call that is not a model call, in a mode that sends nothing upstream. */
export function notRecordedCall(method: string, path: string, mode: string): BlackboxUnsupportedError {
  return new BlackboxUnsupportedError(
    `${method} ${path} is not recorded (only messages.create, chat.completions.create, responses.create and Gemini generateContent are), so ${mode === "replay" ? "replay" : "fork --script"} cannot answer it. Call it outside the recorded client, or only in record mode.`,
  );
}

/**
 * What a record or fork refused during the run (a partial stream, a request or reply it
 * cannot record), said at process end as finish() would throw it: the cassette would lack
 * that call, so none is written (an earlier file at that path is left as it was).
 */
export function notWritten(err: BlackboxError, out: string): Error {
  const error = new Error(`${err.message.replace(/^\[blackbox\]\s*/, "")} No cassette was written to ${out}.`);
  error.name = err.name;
  return error;
}
