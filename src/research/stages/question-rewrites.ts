// Local-only rewrites of the question: with a chat model configured (and its levers on), the model
// is asked once for up to three other ways to say the question, in the words notes would use
// (strict JSON `{rewrites: [...]}`, zod-checked). Each rewrite is planned and searched in the vault
// only; the best note each finds that the first search did not joins the pack (≤ 3 in all). The
// rewrites never reach a provider: web queries stay built from the question alone (plan.ts), and
// the run's plan is never replaced.
import * as z from "zod";
import type { QueryPlan } from "../../evidence/research-pack";
import type { VaultIndex } from "../../index/vault-index";
import type { SearchResult } from "../../index/types";
import type { ChatModel } from "../../llm/chat-model";
import type { Clock, NoteStore } from "../../ports";
import { oneLine } from "../../text/one-line";
import type { RelatedResult } from "./judge";
import { retrieveLocal } from "./local-retrieval";
import { askModelForJson, type ModelJsonFailure } from "./model-json";
import { planQuestion } from "./plan";

export const REWRITE_LIMITS = {
  rewrites: 3,
  rewriteChars: 200,
  maxTokens: 250,
  /** At most this long, and never past the run's deadline. */
  ms: 15_000,
  /** Notes each rewrite's search looks at for one the first search missed. */
  perRewrite: 3,
};

// More rewrites than asked for are not a broken answer: the first ten are read and three used.
const rewritesSchema = z.object({ rewrites: z.array(z.string()).transform((all) => all.slice(0, 10)) });

export const REWRITE_SYSTEM = `You help search a user's own notes. Rewrite the question in up to ${REWRITE_LIMITS.rewrites} different ways, each a short search phrase in the words a note about it would likely use (technical terms, command names, synonyms).
Answer with one JSON object and nothing else: {"rewrites": ["...", "..."]}.`;

export type QuestionRewrites =
  | { kind: "rewritten"; rewrites: string[]; added: RelatedResult[]; model: string }
  | { kind: "failed"; failure: ModelJsonFailure | { kind: "no_rewrites"; message: string } };

export interface RewriteDeps {
  model: ChatModel;
  index: VaultIndex;
  store: NoteStore;
  clock: Clock;
  /** Time left for the call (at most REWRITE_LIMITS.ms). */
  ms: number;
  signal?: AbortSignal;
}

export async function rewriteForLocalSearch(question: string, plan: QueryPlan, found: SearchResult[], deps: RewriteDeps): Promise<QuestionRewrites> {
  const asked = await askModelForJson({
    model: deps.model,
    system: REWRITE_SYSTEM,
    user: `Question: ${oneLine(question)}`,
    schema: rewritesSchema,
    maxTokens: REWRITE_LIMITS.maxTokens,
    ms: Math.min(REWRITE_LIMITS.ms, deps.ms),
    clock: deps.clock,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  if (!asked.ok) return { kind: "failed", failure: asked.failure };
  const rewrites = usableRewrites(asked.value.rewrites, plan);
  if (rewrites.length === 0) return { kind: "failed", failure: { kind: "no_rewrites", message: "The model gave no rewrite that differs from the question." } };
  const seen = new Set(found.map((r) => r.path));
  const added: RelatedResult[] = [];
  for (const rewrite of rewrites) {
    const local = await retrieveLocal(planQuestion(rewrite, { clock: deps.clock }), deps.index, deps.store, { limit: REWRITE_LIMITS.perRewrite, focusedRetry: false });
    const fresh = local.results.find((r) => !seen.has(r.path));
    if (!fresh) continue;
    seen.add(fresh.path);
    added.push({ result: fresh, found: { kind: "rewrite", rewrite } });
  }
  return { kind: "rewritten", rewrites, added, model: asked.model };
}

/** One line each, cut to length, none equal to the question or to another, at most three. */
function usableRewrites(given: string[], plan: QueryPlan): string[] {
  const out: string[] = [];
  const seen = new Set([plan.normalized.toLowerCase()]);
  for (const raw of given) {
    const rewrite = oneLine(raw).slice(0, REWRITE_LIMITS.rewriteChars).trim();
    const key = rewrite.toLowerCase();
    if (!rewrite || seen.has(key)) continue;
    seen.add(key);
    out.push(rewrite);
    if (out.length === REWRITE_LIMITS.rewrites) break;
  }
  return out;
}
