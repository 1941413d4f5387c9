// Page passages weighed by meaning too: when the run searches the vault through the search dial at
// level 2 or above with an embedding model, that model also embeds the question (once a run) and
// each read page's passages (one call a page, at most MAX_EMBEDDED_PASSAGES, the best by words
// first), and the two rankings are fused (page-passages.ts fuseBySimilarity). The user agreed to
// send this server their notes and queries; web passages are public text. On any failure the
// words' ranking stands and the trace says why.
import type { Embedder } from "../../index/embeddings/embedder";
import type { RunState } from "../run-state";
import type { ScoredPassage } from "./page-passages";

export const MAX_EMBEDDED_PASSAGES = 64;

export type PassageMeaning =
  | { kind: "off" }
  | { kind: "ok"; /** Per passage, its cosine with the question; NaN where it was not embedded. */ similarity: number[] }
  | { kind: "failed"; message: string }
  /** Cut off by the user's Stop: no fault of the embedding model's (read-pages.ts says so). */
  | { kind: "stopped" };

/** The dial's embedding model when the run searches at level 2 or above, else null. */
export function passageEmbedder(run: Pick<RunState, "deps">): Embedder | null {
  const dial = run.deps.dial;
  return dial && dial.level >= 2 && dial.embedder ? dial.embedder : null;
}

/** One question vector a run, shared by its pages (read at the same time). */
const questionVectors = new WeakMap<object, Promise<Float32Array | string>>();

function questionVector(run: RunState, embedder: Embedder, signal?: AbortSignal): Promise<Float32Array | string> {
  let vector = questionVectors.get(run);
  if (!vector) {
    vector = embedder.embed([run.request.question], "query", signal).then((answer) => (answer.ok ? answer.vectors[0] : answer.error.message));
    questionVectors.set(run, vector);
  }
  return vector;
}

export async function passageMeaning(run: RunState, ranked: readonly ScoredPassage[], signal?: AbortSignal): Promise<PassageMeaning> {
  const embedder = passageEmbedder(run);
  if (!embedder || ranked.length === 0) return { kind: "off" };
  const question = await questionVector(run, embedder, signal);
  if (typeof question === "string") return { kind: "failed", message: question };
  const chosen = ranked
    .map((_, i) => i)
    .sort((a, b) => ranked[b].score - ranked[a].score || a - b)
    .slice(0, MAX_EMBEDDED_PASSAGES);
  const answer = await embedder.embed(chosen.map((i) => [...ranked[i].heading_path, ranked[i].text].join("\n")), "document", signal);
  if (!answer.ok) return { kind: "failed", message: answer.error.message };
  if (answer.vectors.some((v) => v.length !== question.length)) {
    return { kind: "failed", message: `The embedding model sent passage vectors of another length than the question's (${question.length}).` };
  }
  const similarity = new Array<number>(ranked.length).fill(Number.NaN);
  chosen.forEach((i, j) => (similarity[i] = dot(question, answer.vectors[j])));
  return { kind: "ok", similarity };
}

/** Both are unit length (the Embedder's promise), so this is their cosine. */
function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
