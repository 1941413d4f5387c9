// The settings tab's "Test connection" button: one tiny request that proves the endpoint, model
// name and key work together, reported in words (never with the key).
import { systemClock, type Clock } from "../ports";
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
  const started = clock.now();
  try {
    const response = await withDeadline(
      model.complete({
        system: "You are a connection test. Reply with the single word: ok",
        messages: [{ role: "user", content: "Reply with: ok" }],
        // Reasoning models think before replying; a handful of tokens would end in an empty reply.
        maxTokens: 64,
        temperature: 0,
        signal: options.signal,
      }),
      options.timeoutMs ?? 30_000,
    );
    const ms = clock.now() - started;
    const reply = response.text.trim().slice(0, 80);
    return {
      ok: true,
      model: response.model,
      ms,
      reply,
      message: `Connected to ${response.model} in ${ms} ms.`,
    };
  } catch (error) {
    const ms = clock.now() - started;
    const modelError =
      error instanceof ModelError ? error : new ModelError("network", error instanceof Error ? error.message : String(error));
    return { ok: false, ms, error: modelError, message: `Could not use ${model.name}: ${modelError.message}` };
  }
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ModelError("timeout", `No answer within ${Math.round(ms / 1000)} s.`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
