// One bounded call to the chat model whose answer must be one strict JSON object: temperature 0,
// a token cap, a time limit (the one deadline helper, raced against the run's clock and signal),
// the answer read as JSON (a fence around it is tolerated, as `jsonInModelReply` says) and checked with
// zod. Any failure is a value with a kind and a message, so the caller keeps what it had.
import type * as z from "zod";
import { DeadlineMissed, withDeadline } from "../../deadline";
import { ModelError, type ChatModel } from "../../llm/chat-model";
import type { Clock } from "../../ports";
import { errorMessage } from "../../text/error-message";
import { jsonInModelReply } from "../../text/model-reply-json";
import { oneLine } from "../../text/one-line";

export type ModelJsonFailureKind = "timeout" | "cancelled" | "model_error" | "bad_json" | "bad_shape";

export interface ModelJsonFailure {
  kind: ModelJsonFailureKind;
  message: string;
}

export type ModelJson<T> = { ok: true; value: T; model: string } | { ok: false; failure: ModelJsonFailure };

export interface ModelJsonCall<T> {
  model: ChatModel;
  system: string;
  user: string;
  schema: z.ZodType<T>;
  maxTokens: number;
  /** How long to wait for the answer. */
  ms: number;
  clock: Pick<Clock, "sleep">;
  signal?: AbortSignal;
}

export async function askModelForJson<T>(call: ModelJsonCall<T>): Promise<ModelJson<T>> {
  const fail = (kind: ModelJsonFailureKind, message: string): ModelJson<T> => ({ ok: false, failure: { kind, message } });
  // Aborted when the wait gives up, so a slow server's request does not outlive the stage.
  const abort = new AbortController();
  const onRunAbort = () => abort.abort();
  call.signal?.addEventListener("abort", onRunAbort, { once: true });
  let text: string;
  let model: string;
  let cut: boolean;
  try {
    const response = await withDeadline(call.model.complete({ system: call.system, messages: [{ role: "user", content: call.user }], maxTokens: call.maxTokens, temperature: 0, signal: abort.signal }), {
      clock: call.clock,
      ms: call.ms,
      ...(call.signal ? { signal: call.signal } : {}),
    });
    text = response.text;
    model = response.model;
    cut = response.truncated === true;
  } catch (error) {
    if (error instanceof DeadlineMissed) return fail(error.kind === "timeout" ? "timeout" : "cancelled", error.kind === "timeout" ? `The model did not answer within ${Math.round(call.ms / 1000)} s.` : "The run was cancelled.");
    if (error instanceof ModelError) return fail(error.kind === "timeout" ? "timeout" : error.kind === "cancelled" ? "cancelled" : "model_error", error.message);
    return fail("model_error", errorMessage(error));
  } finally {
    abort.abort();
    call.signal?.removeEventListener("abort", onRunAbort);
  }
  let json: unknown;
  try {
    json = JSON.parse(jsonInModelReply(text));
  } catch {
    // Cut at its token cap, the answer is no JSON for want of its end (a reasoning model spends the cap thinking): not for its words.
    if (cut) return fail("bad_json", `The model stopped at its length limit (${call.maxTokens} tokens) before its JSON answer was complete${text.trim() === "" ? "; a reasoning model may have spent them thinking" : ""}.`);
    if (text.trim() === "") return fail("bad_json", "The model sent an empty answer, not the JSON it was asked for.");
    return fail("bad_json", `The model's answer is not JSON; it starts: ${oneLine(text, 80)}`);
  }
  const checked = call.schema.safeParse(json);
  if (!checked.success) return fail("bad_shape", `The model's JSON does not have the expected shape: ${checked.error.issues.map((i) => `${i.path.join(".") || "answer"}: ${i.message}`).join("; ")}.`);
  return { ok: true, value: checked.data, model };
}
