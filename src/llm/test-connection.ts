// The settings tab's "Test connection" button: one tiny request that proves the endpoint, model
// name and key work together, reported in words (never with the key).
import { DeadlineMissed, withDeadline } from "../deadline";
import { monotonicReading, systemClock, type Clock } from "../ports";
import { ModelError, type ChatModel } from "./chat-model";

export type ConnectionTest =
  | { ok: true; model: string; ms: number; reply: string; message: string }
  | { ok: false; ms: number; error: ModelError; message: string };

export interface ConnectionTestOptions {
  /** Default 30 s: long enough for a local model to load, short enough for a button. */
  timeoutMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
}

export async function testConnection(model: ChatModel, options: ConnectionTestOptions = {}): Promise<ConnectionTest> {
  const clock = options.clock ?? systemClock;
  const timeoutMs = options.timeoutMs ?? 30_000;
  // On the monotonic reading: the wall clock set back during the call read "in -3599200 ms".
  const started = monotonicReading(clock);
  // Aborted when the test ends, answered or not: a server that drips its answer past the deadline
  // was otherwise kept answering, for the model's own time limit, a test that had said "No answer".
  const call = new AbortController();
  const onCancel = () => call.abort();
  if (options.signal?.aborted) call.abort();
  else options.signal?.addEventListener("abort", onCancel, { once: true });
  try {
    const response = await withDeadline(
      model.complete({
        system: "You are a connection test. Reply with the single word: ok",
        messages: [{ role: "user", content: "Reply with: ok" }],
        // Reasoning models think before replying; a handful of tokens would end in an empty reply.
        maxTokens: 64,
        temperature: 0,
        signal: call.signal,
      }),
      { clock, ms: timeoutMs },
    );
    const ms = Math.round(monotonicReading(clock) - started);
    const reply = response.text.trim().slice(0, 80);
    return {
      ok: true,
      model: response.model,
      ms,
      reply,
      message: `Connected to ${response.model} in ${ms} ms.`,
    };
  } catch (error) {
    const ms = Math.round(monotonicReading(clock) - started);
    const modelError = asModelError(error, timeoutMs);
    return { ok: false, ms, error: modelError, message: `Could not use ${model.name}: ${modelError.message}` };
  } finally {
    call.abort();
    options.signal?.removeEventListener("abort", onCancel);
  }
}

function asModelError(error: unknown, timeoutMs: number): ModelError {
  if (error instanceof ModelError) return error;
  // The signal goes to the model, which answers a cancellation itself; the deadline only times out.
  if (error instanceof DeadlineMissed) return new ModelError("timeout", `No answer within ${Math.round(timeoutMs / 1000)} s.`);
  return new ModelError("network", error instanceof Error ? error.message : String(error));
}
