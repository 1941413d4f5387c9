// What a worker (ports.ts `Workers`) answers, and how: the one job table both worker entries
// (cli/worker-main.ts, plugin/worker-main.ts) run. A message is answered with `{ ok: true, answer }`
// or `{ ok: false, error }`, never by throwing: the adapter turns the second into a rejection.
import { answerMeaningsRequest, isMeaningsRequest } from "./vault-language/meanings-job";

export type WorkerReply = { ok: true; answer: unknown } | { ok: false; error: string };

/** The reply to one message, and the buffers to move (not copy) with it. */
export async function answerWorkerMessage(message: unknown): Promise<{ reply: WorkerReply; transfer: ArrayBuffer[] }> {
  try {
    if (!isMeaningsRequest(message)) return { reply: { ok: false, error: "the worker was sent a job it does not know" }, transfer: [] };
    const { answer, transfer } = await answerMeaningsRequest(message);
    return { reply: { ok: true, answer }, transfer };
  } catch (error) {
    return { reply: { ok: false, error: error instanceof Error ? error.message : String(error) }, transfer: [] };
  }
}

/** What the worker replied: its answer, or an error that says what went wrong. */
export function unwrapWorkerReply(reply: unknown): unknown {
  if (typeof reply === "object" && reply !== null) {
    const r = reply as Partial<{ ok: boolean; answer: unknown; error: unknown }>;
    if (r.ok === true) return r.answer;
    if (r.ok === false) throw new Error(`the worker failed: ${typeof r.error === "string" ? r.error : "no reason given"}`);
  }
  throw new Error("the worker's reply is not one this side can read");
}
