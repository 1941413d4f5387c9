// The search dial: one function, `search({ query, level, filters })`, four levels, each doing
// everything the one below does and more —
//   1 lexical      the index's own search (VaultIndex.search, unchanged): no model, no network;
//   2 hybrid       + the notes whose own vector is nearest the query's, fused by RRF (k = 60);
//   3 multi-field  + the notes with the nearest single title, outline or section, that unit named;
//   4 rerank       + the chat model reorders level 3's top 10 (one bounded call, cached).
// A level that cannot run (no embedding model, no vectors yet, no chat model, a failed call)
// runs the highest one that can and says why in `notices`. Every search goes to the query log (one
// given up on does not: no one saw it).
import { stopwatch, systemClock, type Clock, type NoteStore } from "../../ports";
import type { Embedder, EmbedderAnswer } from "../embeddings/embedder";
import type { UnitPlace } from "../embeddings/embedding-units";
import { isZeroVector } from "../embeddings/quantize";
import { FINGERPRINT_TEXT, type LeftOutReason, type NoteVectors, type VectorStore } from "../embeddings/vector-store";
import type { QueryLog, QueryLogMark } from "../query-log/query-log";
import type { IndexedNote, SearchResult } from "../types";
import type { VaultIndex } from "../vault-index";
import { hasFilters, normalizeFilters, passesFilters, type DialFilters } from "./dial-filters";
import { DIAL_LEVELS, type DialLevel, type DialNotice, type DialRequest, type DialResponse, type DialResult, type DialSection, type LaneName } from "./dial-types";
import { RerankCache } from "./rerank-cache";
import { RERANK_COUNT, rerankWithModel, type RerankModel } from "./rerank";
import { reciprocalRankFusion, type FusedKey, type RankedLane } from "./rrf";
import { unitSnippets } from "./unit-snippets";
import { questionCutMessage, questionRead } from "../../text/cut-text";
import { joinSentences } from "../../text/sentence-ends";
import type { SecretScrubber } from "../../text/secret-scrub";

export interface VaultSearchOptions {
  index: VaultIndex;
  notes: NoteStore;
  /** The vectors (levels 2–3); may be filling while searches run. */
  vectors?: VectorStore | null;
  /** Embeds the query (levels 2–3); the vectors must be this model's. */
  embedder?: Embedder | null;
  /** Reorders level 3's top results (level 4). */
  rerankModel?: RerankModel | null;
  /** Every search is logged here (when given and enabled). */
  log?: QueryLog | null;
  /** Recorded in the log: which surface asked ("search-modal", "panel", "cli", "mcp"…). */
  surface?: string;
  /**
   * The scrubber of every key the caller holds, asked at each search: a key typed into the query is
   * gone before a lane, the embedding server, the rerank model, the log or the response reads it
   * (the index lower-cases and splits words, past any scrubbing after it). Default: none.
   */
  scrubber?: () => SecretScrubber | Promise<SecretScrubber>;
  clock?: Clock;
  /** Each lane's candidates before fusion (default 50; as many as the results asked, when more). */
  laneDepth?: number;
  rerankTimeoutMs?: number;
  rerankTtlMs?: number;
}

type Filters = Required<DialFilters>;

/** A lane's keys, best first, with each key's own score and (section lane) matched unit. */
interface Lane {
  lane: LaneName;
  hits: { key: string; score: number; unit?: UnitPlace }[];
}

export class VaultSearch {
  private readonly clock: Clock;
  private readonly rerankCache: RerankCache;

  constructor(private readonly options: VaultSearchOptions) {
    this.clock = options.clock ?? systemClock;
    this.rerankCache = new RerankCache(this.clock, options.rerankTtlMs);
  }

  /** Swaps the vectors, the embedding model or the chat model (settings changed, a job finished). */
  configure(change: Partial<Pick<VaultSearchOptions, "vectors" | "embedder" | "rerankModel">>): void {
    Object.assign(this.options, change);
    this.rerankCache.clear();
  }

  /** Which levels can run now, and for those that cannot, why (the dial greys them out). */
  readiness(): { level: DialLevel; ready: boolean; notice: DialNotice | null }[] {
    return DIAL_LEVELS.map((level) => {
      const chatProblem = level === 4 && !this.options.rerankModel ? unavailable(4, 3, "no_chat_model") : null;
      const notice = level === 1 ? null : (this.vectorProblem(level) ?? chatProblem);
      return { level, ready: notice === null, notice };
    });
  }

  async search(asked: DialRequest): Promise<DialResponse> {
    return this.searchSharing(asked, null, null);
  }

  /**
   * The dial for one query asked at several levels (the comparison, the replay): levels 2–4 share one
   * answer from the embedding model, a failure included, so a paid API is asked once and a server
   * that is down is waited for once. Ask a new one for each query. The query log's mark is taken
   * here, once: a log cleared while level 2 runs gets none of the levels the user asked for before it.
   */
  forOneQuery(): { search(request: DialRequest): Promise<DialResponse> } {
    const shared: SharedEmbeddings = new Map();
    const began = this.options.log?.mark() ?? null;
    return { search: (request) => this.searchSharing(request, shared, began) };
  }

  private async searchSharing(asked: DialRequest, shared: SharedEmbeddings | null, began: QueryLogMark | null): Promise<DialResponse> {
    // On the monotonic reading: on the wall clock, one set back during a search logged a latency of minus an hour.
    const elapsed = stopwatch(this.clock);
    // Taken first: a log cleared while this search runs (an embedding call, a rerank) stays clear of it.
    const logMark = began ?? this.options.log?.mark() ?? null;
    const filters = normalizeFilters(asked.filters);
    const limit = Math.max(1, asked.limit ?? 10);
    const notices: DialNotice[] = [];
    const typed = this.options.scrubber ? (await this.options.scrubber()).text(asked.query) : asked.query;
    // Every lane, the model and the log read the query as the index reads it.
    const query = questionRead(typed);
    const request = query === asked.query ? asked : { ...asked, query };
    if (query !== typed) notices.push({ kind: "query_cut", message: questionCutMessage(typed, "query") });
    let ranLevel: DialLevel = 1;
    let results: DialResult[];
    const vector = request.level >= 2 ? await this.queryVector(request, notices, shared) : null;
    if (vector === null) {
      results = await this.lexicalLevel(request.query, filters, limit, request.loose === true);
    } else {
      const fusedLevel = request.level >= 3 ? 3 : 2;
      results = await this.fusedLevel(request.query, fusedLevel, vector, filters, request.level === 4 ? Math.max(limit, RERANK_COUNT) : limit);
      ranLevel = fusedLevel;
      if (request.level === 4) {
        const reranked = await this.rerankLevel(request, filters, results, notices);
        results = reranked.results;
        ranLevel = reranked.ranLevel;
      }
      results = results.slice(0, limit);
      const partial = this.coverageNotice();
      if (partial) notices.push(partial);
    }
    const latencyMs = elapsed();
    // Given up on (the user typed on, the view closed): no one saw these results, and its cancelled
    // embedding or rerank would read in the log as a level that could not run.
    const logId = request.signal?.aborted ? null : await this.logSearch(request, ranLevel, filters, results, latencyMs, logMark);
    return { query: request.query, level: request.level, ranLevel, results, notices, latencyMs, logId };
  }

  /** Whether the index has a note at `path` now (the replay sets aside notes opened then and gone since). */
  holdsNote(path: string): boolean {
    return this.options.index.note(path) !== undefined;
  }

  /** The user opened a result: logged against the search it came from. */
  async recordClick(response: Pick<DialResponse, "logId" | "results">, key: string): Promise<void> {
    if (!response.logId || !this.options.log) return;
    const rank = response.results.findIndex((r) => r.key === key) + 1;
    await this.options.log.recordClick(response.logId, key, rank);
  }

  // ── level 1 ───────────────────────────────────────────────────────────────────────────────

  private async lexicalLevel(query: string, filters: Filters, limit: number, loose = false): Promise<DialResult[]> {
    const found = (await this.lexicalResults(query, filters, limit, loose)).slice(0, limit);
    const byWords = wordsRanks(found);
    return found.map((result) => {
      const rank = byWords.get(result.path);
      return {
        ...resultBase(result.path, result.title, result.tags, result.score, result),
        section: lexicalSection(result),
        explanation: { lanes: rank === undefined ? [] : [{ lane: "lexical", rank, contribution: 0, score: result.score }] },
      };
    });
  }

  /**
   * VaultIndex.search as it is; with filters, they are applied while ranking: a page asked for more
   * and filtered afterwards lost every match ranked below it ("file" in notes tagged #glossary: none).
   */
  private async lexicalResults(query: string, filters: Filters, limit: number, loose = false): Promise<SearchResult[]> {
    const { index, notes } = this.options;
    if (!hasFilters(filters)) return index.search(query, notes, { limit, loose });
    return index.search(query, notes, { limit, loose, keep: (path) => passesFilters(index.note(path), filters) });
  }

  // ── levels 2 and 3 ────────────────────────────────────────────────────────────────────────

  /** The query's vector, or null (with the notice saying why) when the vector levels cannot run. */
  private async queryVector(request: DialRequest, notices: DialNotice[], shared: SharedEmbeddings | null): Promise<Float32Array | null> {
    const problem = this.vectorProblem(request.level);
    if (problem) {
      notices.push(problem);
      return null;
    }
    const vectors = this.options.vectors!;
    // The model's fingerprint rides along (vector-store.ts): another model of the same dimensions
    // behind the same name would otherwise be compared with the vectors the old one made.
    const texts = vectors.fingerprint ? [request.query, FINGERPRINT_TEXT] : [request.query];
    const answer = await embedOnce(this.options.embedder!, texts, request.signal, shared);
    const unusable = unusableAnswer(answer, texts.length, vectors.dimensions!);
    if (unusable) {
      notices.push({ kind: "embedding_failed", wanted: request.level, ran: 1, errorKind: unusable.kind, message: joinSentences(unusable.message, "Searched by words only (level 1).") });
      return null;
    }
    // Said just above: narrows the answer for the checker.
    if (!answer.ok) return null;
    if (texts.length === 2 && !vectors.sameModelAs(answer.vectors[1])) {
      notices.push({ ...unavailable(request.level, 1, "no_vectors"), message: OTHER_MODEL_WORDS });
      return null;
    }
    return answer.vectors[0];
  }

  private async fusedLevel(query: string, level: 2 | 3, vector: Float32Array, filters: Filters, limit: number): Promise<DialResult[]> {
    const { index, vectors } = this.options;
    // At least as deep as the results asked: a lane cut shorter lost the words' notes past its depth, which level 1 shows.
    const depth = Math.max(this.laneDepth(), limit);
    // Only vectors made from the note as the index has it now: a note edited since its vectors
    // were made is found by its words alone (as the coverage notice says) until it is embedded
    // again, not by what it used to say, under a section its text may no longer hold.
    const accept = (path: string) => {
      const note = index.note(path);
      return passesFilters(note, filters) && vectorsAreCurrent(note!, vectors!.note(path));
    };
    const lexical = await this.lexicalResults(query, filters, depth);
    const lanes: Lane[] = [
      { lane: "lexical", hits: lexical.map((r) => ({ key: r.path, score: r.score })) },
      { lane: "note_vector", hits: vectors!.nearestNotes(vector, depth, accept).map((n) => ({ key: n.path, score: n.similarity })) },
    ];
    if (level === 3) {
      lanes.push({ lane: "section_vector", hits: vectors!.nearestSections(vector, depth, accept).map((n) => ({ key: n.path, score: n.similarity, unit: n.unit })) });
    }
    const fused = reciprocalRankFusion(lanes.map((l): RankedLane<LaneName> => ({ lane: l.lane, keys: l.hits.map((h) => h.key) })));
    const byPath = new Map(lexical.map((r) => [r.path, r]));
    const results = fused.flatMap((f) => this.fusedResult(f, lanes, byPath)).slice(0, limit);
    return this.withUnitSnippets(results);
  }

  private fusedResult(fused: FusedKey<LaneName>, lanes: Lane[], lexical: Map<string, SearchResult>): DialResult[] {
    const note = this.options.index.note(fused.key);
    // Vectors of a note the index no longer has (a sync is under way): not a result.
    if (!note) return [];
    const found = lexical.get(fused.key) ?? null;
    const laneMatches = fused.contributions.map((c) => {
      const hit = lanes.find((l) => l.lane === c.lane)!.hits[c.rank - 1];
      return { lane: c.lane, rank: c.rank, contribution: c.contribution, score: hit.score };
    });
    const sectionHit = lanes.find((l) => l.lane === "section_vector")?.hits.find((h) => h.key === fused.key);
    const section: DialSection | null = sectionHit?.unit
      ? { from: "section_vector", unit: sectionHit.unit.kind, headingPath: sectionHit.unit.headingPath, line: sectionHit.unit.line, start: sectionHit.unit.start, end: sectionHit.unit.end, snippet: "" }
      : found
        ? lexicalSection(found)
        : null;
    return [{ ...resultBase(note.path, note.title, note.tags, fused.score, found), section, explanation: { lanes: laneMatches } }];
  }

  /** Fills the snippets of sections named by the section lane (the vectors hold no text). */
  private async withUnitSnippets(results: DialResult[]): Promise<DialResult[]> {
    const wanted = results.filter((r) => r.section?.from === "section_vector");
    // The index's shown parses: the same long note is shown search after search as the user types, by every surface's dial and the words' lane alike.
    const snippets = await unitSnippets(
      { notes: this.options.notes, index: this.options.index },
      wanted.map((r) => ({ path: r.path, unit: { kind: r.section!.unit, headingPath: r.section!.headingPath, line: r.section!.line, start: r.section!.start, end: r.section!.end } })),
    );
    wanted.forEach((r, i) => (r.section!.snippet = snippets[i]));
    return results;
  }

  // ── level 4 ───────────────────────────────────────────────────────────────────────────────

  private async rerankLevel(request: DialRequest, filters: Filters, results: DialResult[], notices: DialNotice[]): Promise<{ results: DialResult[]; ranLevel: DialLevel }> {
    const model = this.options.rerankModel;
    if (!model) {
      notices.push(unavailable(4, 3, "no_chat_model"));
      return { results, ranLevel: 3 };
    }
    const top = results.slice(0, RERANK_COUNT);
    if (top.length < 2) return { results, ranLevel: 4 };
    const key = RerankCache.key({ query: request.query, level: 4, filters, candidates: top.map((r) => r.key) });
    let kept = this.rerankCache.get(key);
    if (kept) {
      notices.push({ kind: "rerank_cached", message: `Reordered by ${model.name} earlier (kept for a few minutes).` });
    } else {
      const candidates = top.map((r) => ({ title: r.title, headingPath: r.section?.headingPath ?? [], snippet: r.section?.snippet || r.title }));
      const outcome = await rerankWithModel(model, request.query, candidates, { clock: this.clock, timeoutMs: this.options.rerankTimeoutMs, signal: request.signal });
      if (!outcome.ok) {
        notices.push({ kind: "rerank_failed", reason: outcome.reason, message: outcome.message });
        return { results, ranLevel: 3 };
      }
      kept = { order: outcome.order, named: outcome.named };
      this.rerankCache.set(key, kept);
    }
    // The model placed only some: the rest follow in level 3's order, which no one should read as its judgement.
    if (kept.named < top.length) notices.push(partialRerank(model.name, kept.named, top.length));
    const reordered = kept.order.map((from, to) => ({ ...top[from], explanation: { ...top[from].explanation, rerank: { before: from + 1, after: to + 1, model: model.name } } }));
    return { results: [...reordered, ...results.slice(top.length)], ranLevel: 4 };
  }

  // ── what the levels share ─────────────────────────────────────────────────────────────────

  /** Why the vector levels cannot run now, or null when they can. */
  private vectorProblem(wanted: DialLevel): DialNotice | null {
    const { embedder, vectors } = this.options;
    if (!embedder) return unavailable(wanted, 1, "no_embedder");
    if (!vectors || vectors.size === 0 || vectors.model !== embedder.name || vectors.dimensions === null) return unavailable(wanted, 1, "no_vectors");
    return null;
  }

  /**
   * Said when notes lack current vectors: they are found by their words only. Those the embedding job
   * tried as they are now and left out (refused by the server, unreadable) are said apart: embedding
   * going on does not catch them up, and "until embedding catches up" was said of them on every search.
   */
  private coverageNotice(): DialNotice | null {
    const { index, vectors } = this.options;
    const paths = index.paths();
    const left: Record<LeftOutReason | "waiting", number> = { waiting: 0, server_error: 0, not_a_vector: 0, unreadable: 0 };
    let embedded = 0;
    for (const path of paths) {
      const note = index.note(path)!;
      if (vectorsAreCurrent(note, vectors?.note(path))) embedded++;
      else left[vectors?.leftOutAs({ path, mtime: note.mtime, size: note.size }) ?? "waiting"]++;
    }
    if (embedded >= paths.length) return null;
    const refused = left.server_error + left.not_a_vector;
    return { kind: "vectors_partial", embedded, notes: paths.length, waiting: left.waiting, refused, unreadable: left.unreadable, message: coverageWords(embedded, paths.length, left) };
  }

  private async logSearch(request: DialRequest, ranLevel: DialLevel, filters: Filters, results: DialResult[], latencyMs: number, began: QueryLogMark | null): Promise<string | null> {
    const log = this.options.log;
    if (!log || !began) return null;
    const search = {
      query: request.query,
      level: request.level,
      ranLevel,
      filters,
      results: results.map((r) => r.key),
      latencyMs,
      surface: this.options.surface ?? "unknown",
    };
    // Only level 1 reads `loose` (a vector level ignores it), so only then is the search the spelling fallback.
    return log.recordSearch(ranLevel === 1 && request.loose === true ? { ...search, loose: true } : search, began);
  }

  private laneDepth(): number {
    return this.options.laneDepth ?? 50;
  }
}

/**
 * Why the model's answer for the query's texts cannot be searched with, or null: its failure; not one
 * vector a text (any embedder of the shape may answer); a vector not of the stored vectors' length (the
 * cosine loop reads past it); zeros, at cosine 0 from every note, so the vector lanes would be the
 * vault in stored order, fused as if near the query.
 */
function unusableAnswer(answer: EmbedderAnswer, texts: number, dimensions: number): { kind: string; message: string } | null {
  if (!answer.ok) return { kind: answer.error.kind, message: answer.error.message };
  if (answer.vectors.length !== texts) return { kind: "parse", message: `The embedding server sent ${answer.vectors.length} ${answer.vectors.length === 1 ? "vector" : "vectors"} for ${texts} texts.` };
  const other = answer.vectors.find((v) => v.length !== dimensions);
  if (other) return { kind: "dimension_mismatch", message: `The query's vector has ${other.length} dimensions and the stored ones ${dimensions}: embed the vault again.` };
  if (answer.vectors.some(isZeroVector)) return { kind: "parse", message: ZERO_QUERY_WORDS };
  return null;
}

/** The embedding model's answers for one query's texts, by those texts, with the model that gave each. */
type SharedEmbeddings = Map<string, { embedder: Embedder; answer: Promise<EmbedderAnswer> }>;

/** The query's vectors: asked of the model, or the answer it already gave these texts in this `shared` (the same model only). */
function embedOnce(embedder: Embedder, texts: string[], signal: AbortSignal | undefined, shared: SharedEmbeddings | null): Promise<EmbedderAnswer> {
  if (!shared) return embedder.embed(texts, "query", signal);
  const key = JSON.stringify(texts);
  const known = shared.get(key);
  // The settings swapped the model between two levels: the new one is asked.
  if (known?.embedder === embedder) return known.answer;
  const answer = embedder.embed(texts, "query", signal);
  shared.set(key, { embedder, answer });
  return answer;
}

/**
 * Each result's rank by its words alone: the index orders by its words' score, unless the
 * vault-language lane was fused in, so "Words: 1st" must be the words' first, not the first place.
 * A fused result says its words' rank (`explanation.fusion.wordsRank`; null: only that lane found
 * it), counted over every note the words ranked, shown or not: a words' note the lane pushed out of
 * the shown ones still holds its rank. A result without it is ranked by its words' score among
 * those shown, a note only that lane found (words' score 0) with none.
 */
function wordsRanks(results: readonly SearchResult[]): Map<string, number> {
  const unfused = results.filter((r) => !r.explanation.fusion && !(r.score === 0 && r.explanation.vaultLanguage)).sort((a, b) => b.score - a.score);
  const ranks = new Map(unfused.map((r, i) => [r.path, i + 1]));
  for (const r of results) {
    const rank = r.explanation.fusion?.wordsRank;
    if (rank != null) ranks.set(r.path, rank);
  }
  return ranks;
}

/** The notes the vectors cover, and why the others are found by their words only. */
function coverageWords(embedded: number, notes: number, left: Record<LeftOutReason | "waiting", number>): string {
  const covered = `Vectors cover ${embedded} of ${notes} notes; the others are found by their words only`;
  if (left.waiting === notes - embedded) return `${covered} until embedding catches up.`;
  const parts = [
    left.waiting > 0 ? `${left.waiting} until embedding catches up` : "",
    left.server_error > 0 ? `${left.server_error} the embedding server refused (an error for ${left.server_error === 1 ? "its" : "their"} text)` : "",
    left.not_a_vector > 0 ? `${left.not_a_vector} the embedding server refused (${left.not_a_vector === 1 ? "its answer was not a vector" : "its answers were not vectors"})` : "",
    left.unreadable > 0 ? `${left.unreadable} that could not be read` : "",
  ];
  return `${covered}: ${parts.filter((p) => p !== "").join(", ")}.`;
}

/** Whether a note's stored vectors were made from the note as the index has it (same mtime and size). */
function vectorsAreCurrent(note: IndexedNote, stored: NoteVectors | undefined): boolean {
  return stored !== undefined && stored.mtime === note.mtime && stored.size === note.size;
}

function resultBase(path: string, title: string, tags: string[], score: number, lexical: SearchResult | null): Omit<DialResult, "section" | "explanation"> {
  return { key: path, path, title, tags, score, lexical };
}

function lexicalSection(result: SearchResult): DialSection | null {
  const best = result.sections[0];
  if (!best) return null;
  return { from: "lexical", unit: "section", headingPath: best.headingPath, line: best.line, start: best.start, end: best.end, snippet: best.snippet };
}

const UNAVAILABLE_WORDS: Record<"no_embedder" | "no_vectors" | "no_chat_model", string> = {
  no_embedder: "No embedding model is set, so this search used words only (level 1).",
  no_vectors: "The vault has no vectors from this embedding model yet, so this search used words only (level 1). Embed the vault first.",
  no_chat_model: "No chat model is set, so level 3's order stands (no reranking).",
};

const OTHER_MODEL_WORDS =
  "The embedding model answers differently than when the vault's vectors were made (another model behind the same name?), so this search used words only (level 1). Embed the vault again.";

const ZERO_QUERY_WORDS = "The embedding server answered the query with a vector of zeros, which no embedding model gives: check the server's model and settings";

function partialRerank(model: string, named: number, candidates: number): DialNotice {
  const rest = candidates - named;
  const others = rest === 1 ? "the last follows" : `the other ${rest} follow`;
  return {
    kind: "rerank_partial",
    named,
    candidates,
    message: `${model} ranked only ${named} of the ${candidates} results; ${others} ${named === 1 ? "it" : "them"} in level 3's order.`,
  };
}

function unavailable(wanted: DialLevel, ran: DialLevel, reason: "no_embedder" | "no_vectors" | "no_chat_model"): DialNotice {
  return { kind: "level_unavailable", wanted, ran, reason, message: UNAVAILABLE_WORDS[reason] };
}
