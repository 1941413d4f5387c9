// The vault index: every note of the vault in one MiniSearch engine, kept current file by file,
// persisted through the IndexCache port, searched with field boosts, length-scaled fuzzy and
// prefix matching, #tag and "phrase" filters, and an explanation attached to every result.
//
// Memory is the constraint that shapes this file: the index keeps postings and a little metadata
// per note, never the note text. Snippets and sections are made at query time by re-reading the
// few notes that are shown.
import MiniSearch from "minisearch";
import type { Clock, IndexCache, NoteFileInfo, NoteStore } from "../ports";
import { systemClock } from "../ports";
import { parseNote } from "./markdown";
import { parseQuery, type ParsedQuery } from "./query";
import { buildSectionHits } from "./section-hits";
import { synonymTable } from "./synonyms";
import { createAnalyzer, type Analyzer } from "./tokenize";
import type {
  IndexStatus,
  NoteProblem,
  ParsedNote,
  ScorePart,
  SearchExplanation,
  SearchOptions,
  SearchResult,
  SyncReport,
} from "./types";
import { errorMessage } from "../text/error-message";
import { roundTo } from "../text/numbers";
import { CJK_CHAR, CJK_CHARS } from "../text/scripts";

/** Bump when the analyser or the document shape changes: old caches are then rebuilt. */
export const INDEX_FORMAT_VERSION = 5;

export interface VaultIndexOptions {
  /** Vault-relative folders whose notes are never indexed (callers add the trace folder). */
  excludedFolders?: string[];
  /** English stemming (default true). */
  stemming?: boolean;
  clock?: Clock;
  /** Turns a `source`/`url` property into the form web results are compared by. */
  canonicalizeUrl?: (url: string) => string | null;
  /** Called between batches while building, so a UI thread can breathe. */
  yieldToUi?: () => Promise<void>;
  /** Notes larger than this are indexed by their first part only (default 2 MB). */
  maxNoteBytes?: number;
  /** Ranking knobs; DEFAULT_RANKING when absent. */
  ranking?: Partial<RankingOptions>;
}

/** What the index remembers of a note besides its postings. */
export interface IndexedNote {
  path: string;
  mtime: number;
  size: number;
  title: string;
  aliases: string[];
  tags: string[];
  sourceUrls: string[];
  problems: NoteProblem[];
}

interface EngineDoc {
  path: string;
  title: string;
  /** The opening of the note (description property, first paragraph): what the note is about. */
  lead: string;
  aliases: string;
  headings: string;
  tags: string;
  location: string;
  body: string;
}

const FIELDS = ["title", "aliases", "lead", "headings", "tags", "location", "body"] as const;
type Field = (typeof FIELDS)[number];

/** The knobs of ranking. Tuned against evals/search (see `npm run eval:search`). */
export interface RankingOptions {
  /** Field boosts: a word in the title says far more about a note than the same word in its body. */
  fieldBoosts: Record<Field, number>;
  /** Worth of an approximate match relative to an exact one (MiniSearch's weights). */
  fuzzyWeight: number;
  prefixWeight: number;
  /** A note's text score is multiplied by coverage^power, coverage being the share of the query's
   * IDF weight the note matched: notes that match the rare words of a question rise. */
  coveragePower: number;
  /** Extra score, as a share of the score, for a note whose title is made of query words. */
  titleBonus: number;
  /** Shortest word that also matches as a prefix of longer words (the last word while typing
   * always does). Prefix lookups on short words are both slow and noisy. */
  prefixMinLength: number;
  /** Words this long tolerate one typo; `twoEditsMinLength` and longer, two. Shorter words must
   * match exactly: one edit turns "task" into "tack". */
  fuzzyMinLength: number;
  twoEditsMinLength: number;
  /** A word in more than this share of the notes (and more than `commonMinNotes` notes) only adds
   * to notes that rarer words found. */
  commonShare: number;
  commonMinNotes: number;
  /** Fuzzy matching is tried only for words fewer than this many notes contain exactly. */
  fuzzyBelowNotes: number;
}

export const DEFAULT_RANKING: RankingOptions = {
  fieldBoosts: { title: 5, aliases: 4, lead: 4, location: 1.5, headings: 2, tags: 2.5, body: 1 },
  fuzzyWeight: 0.3,
  prefixWeight: 0.35,
  coveragePower: 2,
  titleBonus: 0.5,
  prefixMinLength: 99,
  fuzzyMinLength: 5,
  twoEditsMinLength: 9,
  fuzzyBelowNotes: 30,
  commonShare: 0.05,
  commonMinNotes: 200,
};

const READ_CONCURRENCY = 32;
/** Characters of recently shown notes whose parse is kept (text and parse together, a few MB). */
const SHOWN_NOTES_CHARS = 2_000_000;
const BATCH = 250;

interface CacheFile {
  format: "vault-research-index";
  version: number;
  fingerprint: string;
  savedAt: number;
  notes: [string, number, number, string, string[], string[], string[], NoteProblem[]][];
  engine: unknown;
}

export class VaultIndex {
  private readonly analyzer: Analyzer;
  private readonly synonyms: Map<string, string[]>;
  private readonly clock: Clock;
  private readonly canonicalize: (url: string) => string | null;
  private readonly maxNoteBytes: number;
  private readonly yieldToUi: () => Promise<void>;
  private excluded: string[];
  /** Ranking knobs; may be changed between searches (evaluation sweeps do). */
  ranking: RankingOptions;
  private engine: MiniSearch<EngineDoc>;
  private readonly notes = new Map<string, IndexedNote>();
  private readonly bySource = new Map<string, Set<string>>();
  private readonly fileProblems = new Map<string, NoteProblem>();
  private readonly generation = new Map<string, number>();
  /** Recently shown notes' parses, oldest first (see parsedForDisplay). */
  private readonly shownNotes = new Map<string, { text: string; parsed: ParsedNote }>();
  private shownChars = 0;
  private readonly listeners = new Set<(status: IndexStatus) => void>();
  private state: IndexStatus["state"] = "empty";
  private lastUpdated: number | null = null;

  constructor(options: VaultIndexOptions = {}) {
    this.analyzer = createAnalyzer({ stemming: options.stemming ?? true });
    this.synonyms = synonymTable((word) => this.analyzer.normalizeTerm(word));
    this.clock = options.clock ?? systemClock;
    this.canonicalize = options.canonicalizeUrl ?? basicCanonicalUrl;
    this.maxNoteBytes = options.maxNoteBytes ?? 2_000_000;
    this.yieldToUi = options.yieldToUi ?? (() => Promise.resolve());
    this.excluded = normalizeFolders(options.excludedFolders ?? []);
    this.ranking = { ...DEFAULT_RANKING, ...options.ranking };
    this.engine = this.createEngine();
  }

  // ── building and keeping current ───────────────────────────────────────────────────────────

  /**
   * Brings the index in line with the store: loads the cache if it is usable, then indexes only
   * what was added or changed (by path, mtime and size) and drops what is gone. A missing, old or
   * corrupt cache means a rebuild, never an error.
   */
  async sync(store: NoteStore, cache: IndexCache | null): Promise<SyncReport> {
    const started = this.clock.now();
    let rebuildReason: string | undefined = "no cache";
    if (cache) {
      const loaded = await this.tryLoadCache(cache);
      rebuildReason = loaded === true ? undefined : loaded;
    }
    if (rebuildReason !== undefined) this.reset();
    this.setState(rebuildReason === undefined ? "updating" : "building");

    let files: NoteFileInfo[];
    try {
      files = (await store.list()).filter((f) => this.isIndexable(f.path));
    } catch (error) {
      // The caller reports the failure; the index must not look busy forever.
      this.setState(this.notes.size > 0 ? "ready" : "empty");
      throw error;
    }
    const seen = new Set<string>();
    const toRead: string[] = [];
    let unchanged = 0;
    let updated = 0;
    let added = 0;
    for (const file of files) {
      seen.add(file.path);
      const known = this.notes.get(file.path);
      if (known && known.mtime === file.mtime && known.size === file.size) {
        unchanged++;
        continue;
      }
      if (known) updated++;
      else added++;
      toRead.push(file.path);
    }
    let removed = 0;
    for (const path of Array.from(this.notes.keys())) {
      if (!seen.has(path)) {
        this.discardNote(path);
        removed++;
      }
    }
    const infos = new Map(files.map((f) => [f.path, f]));
    for (let i = 0; i < toRead.length; i += BATCH) {
      const batch = toRead.slice(i, i + BATCH);
      const generations = batch.map((path) => this.generation.get(path) ?? 0);
      const texts = await readMany(store, batch);
      for (let j = 0; j < batch.length; j++) {
        // An update or removal that arrived while the batch was being read is newer than the read.
        if ((this.generation.get(batch[j]) ?? 0) !== generations[j]) continue;
        const info = infos.get(batch[j])!;
        const text = texts[j];
        if (typeof text === "string") this.indexText(info.path, text, info.mtime, info.size);
        else this.recordUnreadable(info.path, text);
      }
      if (i + BATCH < toRead.length) await this.yieldToUi();
    }
    this.lastUpdated = this.clock.now();
    this.setState("ready");
    return {
      mode: rebuildReason === undefined ? "cache" : "rebuild",
      rebuildReason,
      added,
      updated,
      removed,
      unchanged,
      ms: this.clock.now() - started,
    };
  }

  /** Drops everything and indexes the store from scratch. */
  async rebuild(store: NoteStore): Promise<SyncReport> {
    this.reset();
    const report = await this.sync(store, null);
    return { ...report, rebuildReason: "asked for" };
  }

  /**
   * Re-reads one file and (re)indexes it; drops it when it is gone or excluded. When two updates
   * of the same path overlap, only the one that started last is applied, so a slow read of an
   * old version can never overwrite a newer one.
   */
  async updateFile(store: NoteStore, path: string): Promise<void> {
    const gen = (this.generation.get(path) ?? 0) + 1;
    this.generation.set(path, gen);
    if (!this.isIndexable(path)) {
      this.removeFile(path);
      return;
    }
    let text: string | NoteProblem;
    let info: { mtime: number; size: number } | undefined;
    try {
      if (!(await store.exists(path))) {
        if (this.generation.get(path) === gen) this.removeFile(path);
        return;
      }
      text = await store.read(path);
      info = store.stat ? ((await store.stat(path)) ?? undefined) : (await store.list()).find((f) => f.path === path);
    } catch (error) {
      text = { kind: "read", message: errorMessage(error) };
    }
    if (this.generation.get(path) !== gen) return;
    if (typeof text === "string") this.indexText(path, text, info?.mtime ?? this.clock.now(), info?.size ?? text.length);
    else this.recordUnreadable(path, text);
    this.touch();
  }

  /** Like `updateFile` but with the file's facts already known (saves listing the store). */
  applyText(path: string, text: string, mtime: number, size: number): void {
    this.generation.set(path, (this.generation.get(path) ?? 0) + 1);
    if (!this.isIndexable(path)) {
      this.removeFile(path);
      return;
    }
    this.indexText(path, text, mtime, size);
    this.touch();
  }

  removeFile(path: string): void {
    this.generation.set(path, (this.generation.get(path) ?? 0) + 1);
    const had = this.notes.has(path) || this.fileProblems.has(path);
    this.discardNote(path);
    this.fileProblems.delete(path);
    if (had) this.touch();
  }

  async renameFile(store: NoteStore, oldPath: string, newPath: string): Promise<void> {
    this.removeFile(oldPath);
    await this.updateFile(store, newPath);
  }

  /** Changes the excluded folders: notes inside them leave the index at once; call `sync` to add back notes that are no longer excluded. */
  setExcludedFolders(folders: string[]): void {
    this.excluded = normalizeFolders(folders);
    let changed = false;
    for (const path of Array.from(this.notes.keys())) {
      if (!this.isIndexable(path)) {
        this.discardNote(path);
        changed = true;
      }
    }
    if (changed) this.touch();
  }

  isIndexable(path: string): boolean {
    if (!path.toLowerCase().endsWith(".md")) return false;
    for (const folder of this.excluded) if (path.startsWith(folder)) return false;
    return true;
  }

  // ── persistence ───────────────────────────────────────────────────────────────────────────

  serialize(): string {
    const file: CacheFile = {
      format: "vault-research-index",
      version: INDEX_FORMAT_VERSION,
      fingerprint: this.fingerprint(),
      savedAt: this.clock.now(),
      notes: Array.from(this.notes.values(), (n) => [n.path, n.mtime, n.size, n.title, n.aliases, n.tags, n.sourceUrls, n.problems]),
      engine: this.engine.toJSON(),
    };
    return JSON.stringify(file);
  }

  async save(cache: IndexCache): Promise<void> {
    await cache.save(this.serialize());
  }

  /** true when loaded; otherwise the reason the cache could not be used. */
  private async tryLoadCache(cache: IndexCache): Promise<true | string> {
    let raw: string | null;
    try {
      raw = await cache.load();
    } catch (error) {
      return `cache could not be read (${errorMessage(error)})`;
    }
    if (raw === null || raw === "") return "no cache";
    try {
      const parsed = JSON.parse(raw) as Partial<CacheFile>;
      if (parsed.format !== "vault-research-index") return "cache is not a Vault Research index";
      if (parsed.version !== INDEX_FORMAT_VERSION) return `cache version ${String(parsed.version)} ≠ ${INDEX_FORMAT_VERSION}`;
      if (parsed.fingerprint !== this.fingerprint()) return "index settings changed";
      if (!Array.isArray(parsed.notes) || typeof parsed.engine !== "object" || parsed.engine === null) {
        return "cache is incomplete";
      }
      const engine = MiniSearch.loadJS<EngineDoc>(parsed.engine as Parameters<typeof MiniSearch.loadJS>[0], this.engineOptions());
      this.reset();
      this.engine = engine;
      for (const row of parsed.notes) {
        const [path, mtime, size, title, aliases, tags, sourceUrls, problems] = row;
        if (typeof path !== "string" || !engine.has(path)) continue;
        // A row of the wrong shape would crash later readers (status, search): leave it out, and
        // the count check below turns the cache into a rebuild.
        if (typeof mtime !== "number" || typeof size !== "number" || typeof title !== "string") continue;
        if (![aliases, tags, sourceUrls, problems].every(Array.isArray)) continue;
        this.rememberNote({ path, mtime, size, title, aliases, tags, sourceUrls, problems });
      }
      if (this.notes.size !== engine.documentCount) {
        this.reset();
        return "cache is inconsistent";
      }
      return true;
    } catch (error) {
      this.reset();
      return `cache is corrupt (${errorMessage(error)})`;
    }
  }

  private fingerprint(): string {
    return JSON.stringify({ stemming: this.analyzer.options.stemming, excluded: this.excluded });
  }

  // ── searching ─────────────────────────────────────────────────────────────────────────────

  async search(query: string, store: NoteStore, options: SearchOptions = {}): Promise<SearchResult[]> {
    const limit = options.limit ?? 10;
    const sectionsPerNote = options.sectionsPerNote ?? 3;
    const parsed = parseQuery(query);
    // The phrase check throws candidates away, so it needs more of them than the limit.
    const candidates = parsed.phrases.length > 0 ? Math.max(limit * 10, 100) : limit;
    const ranked = this.rank(parsed, candidates, { asYouType: options.asYouType ?? false });
    const verified = parsed.phrases.length > 0 ? await this.keepPhraseMatches(ranked, parsed, store, limit) : ranked.slice(0, limit);
    const results: SearchResult[] = [];
    const texts = await readMany(
      store,
      verified.map((r) => r.path),
    );
    for (let i = 0; i < verified.length; i++) {
      const hit = verified[i];
      const note = this.notes.get(hit.path);
      if (!note) continue;
      const text = texts[i];
      const parsedNote = typeof text === "string" ? this.parsedForDisplay(hit.path, text) : null;
      const sections = parsedNote ? buildSectionHits(parsedNote, hit.docTerms, this.analyzer, sectionsPerNote) : [];
      results.push({
        path: hit.path,
        title: note.title,
        score: hit.score,
        tags: note.tags,
        sections,
        explanation: hit.explanation,
      });
    }
    return results;
  }

  /** Ranked candidates without reading any file (no snippets): the part that must be fast. */
  rank(parsed: ParsedQuery, limit: number, opts: { asYouType: boolean } = { asYouType: false }): RankedHit[] {
    // A #tag that no note carries is more likely a word the user wrote than a filter.
    const knownTags = parsed.tags.filter((tag) => this.tagExists(tag));
    const looseTags = parsed.tags.filter((tag) => !knownTags.includes(tag));
    const effective: ParsedQuery = looseTags.length ? { ...parsed, tags: knownTags, words: [...parsed.words, ...looseTags.flatMap((t) => t.split("/"))] } : parsed;
    const terms = queryTerms(effective, this.analyzer, this.synonyms);
    const tagFilter = knownTags.length > 0 ? (path: string) => this.hasAllTags(path, knownTags) : null;
    if (terms.length === 0) return tagFilter ? this.tagOnly(knownTags) : [];

    // The word being typed: all its own terms may be prefixes (not its synonyms, which come last).
    const lastWord = effective.words[effective.words.length - 1];
    const docCount = Math.max(1, this.engine.documentCount);
    const combined = new Map<string, Candidate>();
    const groupIdf: number[] = [];
    const groupNotes: number[] = [];
    // Rare terms first: a word that a large share of the vault uses cannot lift a note that matched
    // nothing rarer above one that did, so such words only add to notes already found (looking
    // them up across thousands of notes is most of a slow search).
    const order = terms.map((_, i) => i).sort((a, b) => this.notesWithTerm(terms[a].term) - this.notesWithTerm(terms[b].term));
    // Small vaults are fast anyway, and there every word is "common": only large ones restrict.
    const commonAbove = Math.max(docCount * this.ranking.commonShare, this.ranking.commonMinNotes);
    for (const termIndex of order) {
      const qt = terms[termIndex];
      const common = combined.size > 0 && this.notesWithTerm(qt.term) > commonAbove;
      const lookup = (fuzzy: number | false) =>
        this.engine.search(qt.term, {
          ...(common ? { boostDocument: (id: unknown) => (combined.has(id as string) ? 1 : 0) } : {}),
          tokenize: (s) => [s],
          processTerm: (t) => t,
          boost: this.ranking.fieldBoosts,
          weights: { fuzzy: this.ranking.fuzzyWeight, prefix: this.ranking.prefixWeight },
          fuzzy,
          prefix: (qt.term.length >= this.ranking.prefixMinLength && !qt.synonym) || (opts.asYouType && !qt.synonym && qt.word === lastWord && qt.term.length >= 2),
          filter: tagFilter ? (r) => tagFilter(r.id as string) : undefined,
        });
      let results = lookup(false);
      // Rarity of the term itself (exact matches), so "the one tool" weighs "tool" above "one".
      let exact = 0;
      if (common) exact = this.notesWithTerm(qt.term);
      else for (const r of results) if (r.match[qt.term]) exact++;
      // Typo tolerance is for words the vault barely uses as typed ("sintax"); a word many notes
      // share is not a typo, and fuzzy lookups of long words are the slowest part of a search.
      const distance = qt.synonym ? false : fuzzyDistance(qt.term, this.ranking);
      if (distance && exact < this.ranking.fuzzyBelowNotes) results = lookup(distance);
      const idf = Math.log(1 + docCount / (1 + (exact || results.length)));
      // A group weighs what its own word weighs; synonyms only help a note cover it.
      if (!qt.synonym) groupIdf[qt.group] = idf * qt.weight;
      groupNotes[qt.group] = (groupNotes[qt.group] ?? 0) + results.length;
      // The hot loop: every note that matched any term passes here, so it only adds up scores and
      // keeps a reference to MiniSearch's match record; fields and words are worked out later, for
      // the few notes that are shown.
      for (const r of results) {
        const path = r.id as string;
        let c = combined.get(path);
        if (!c) combined.set(path, (c = { path, textScore: 0, matched: [], matches: [] }));
        c.textScore += r.score * qt.weight;
        c.matched.push(termIndex);
        c.matches.push(r.match);
      }
    }
    const idfTotal = groupIdf.reduce((a, b) => a + (b ?? 0), 0) || 1;
    const scored: { c: Candidate; score: number; coverage: number }[] = [];
    for (const c of combined.values()) {
      // Each group counts once however many of its terms matched (a word and its synonyms); past 31
      // groups a bit mask cannot tell, so coverage is capped at 1 instead.
      let covered = 0;
      let seenGroups = 0;
      for (const i of c.matched) {
        const g = terms[i].group;
        const bit = g < 31 ? 1 << g : 0;
        if (bit !== 0 && (seenGroups & bit) !== 0) continue;
        seenGroups |= bit;
        covered += groupIdf[g] ?? 0;
      }
      const coverage = Math.min(1, covered / idfTotal);
      scored.push({ c, coverage, score: c.textScore * coverage ** this.ranking.coveragePower });
    }
    scored.sort((a, b) => b.score - a.score);
    const take = Math.min(scored.length, Math.max(limit * 5, 50));
    const hits: RankedHit[] = [];
    const termWeights: Record<string, number> = {};
    const termNotes: Record<string, number> = {};
    for (const t of terms) {
      if (t.synonym) continue;
      termWeights[t.word] = Math.max(termWeights[t.word] ?? 0, roundTo(groupIdf[t.group] ?? 0, 3));
      termNotes[t.word] = Math.max(termNotes[t.word] ?? 0, groupNotes[t.group] ?? 0);
    }
    for (let i = 0; i < take; i++) hits.push(this.explain(scored[i].c, scored[i].coverage, terms, knownTags, { termWeights, termNotes }));
    hits.sort((a, b) => b.score - a.score);
    return hits;
  }

  private explain(c: Candidate, coverage: number, terms: QueryTerm[], tags: string[], stats: Pick<SearchExplanation, "termWeights" | "termNotes">): RankedHit {
    const note = this.notes.get(c.path);
    const parts: ScorePart[] = [];
    const fields: Record<string, string[]> = {};
    const { match, wordOf } = matchesOf(c, terms);
    for (const [docTerm, matchedFields] of Object.entries(match)) {
      const word = wordOf[docTerm] ?? wordForDocTerm(docTerm, terms);
      for (const field of matchedFields) {
        const list = (fields[field] ??= []);
        if (!list.includes(word)) list.push(word);
      }
    }
    const matchedWords = new Set([...c.matched].sort((a, b) => a - b).map((i) => terms[i].word));
    const allWords = Array.from(new Set(terms.filter((t) => !t.synonym).map((t) => t.word)));
    const missing = allWords.filter((w) => !matchedWords.has(w));
    parts.push({
      name: "text match",
      detail: `BM25 over ${Object.keys(fields).join(", ") || "no field"} (${describeBoosts(this.ranking.fieldBoosts)})`,
      weight: roundTo(c.textScore, 3),
    });
    let score = c.textScore * coverage ** this.ranking.coveragePower;
    parts.push({
      name: "query coverage",
      detail: `${matchedWords.size} of ${allWords.length} query words matched, ${Math.round(coverage * 100)}% of the query's weight (rare words weigh more)`,
      weight: roundTo(score - c.textScore, 3),
    });
    // A note whose title is what was asked about is the note: "tar" for "how do I use tar".
    if (note) {
      const titleTerms = this.analyzer.terms(note.title);
      if (titleTerms.length > 0 && titleTerms.length <= 6) {
        const queryTermSet = new Set(terms.map((t) => t.term));
        const covered = titleTerms.filter((t) => queryTermSet.has(t)).length / titleTerms.length;
        if (covered > 0) {
          const bonus = score * this.ranking.titleBonus * covered * covered;
          score += bonus;
          parts.push({ name: "title match", detail: `${Math.round(covered * 100)}% of the title's words are in the query`, weight: roundTo(bonus, 3) });
        }
      }
    }
    if (tags.length > 0) parts.push({ name: "tag", detail: `has #${tags.join(", #")}`, weight: 0 });
    return {
      path: c.path,
      score: roundTo(score, 3),
      docTerms: new Map(Object.keys(match).map((t) => [t, wordOf[t] ?? wordForDocTerm(t, terms)])),
      explanation: { matchedTerms: Array.from(matchedWords), missingTerms: missing, fields, parts, ...stats },
    };
  }

  /**
   * The parse of a note being shown, reused while its text is unchanged: follow-up questions and
   * typing in the search box show the same long notes again and again. Bounded by total characters.
   */
  private parsedForDisplay(path: string, text: string): ParsedNote {
    const cached = this.shownNotes.get(path);
    if (cached && cached.text === text) {
      this.shownNotes.delete(path);
      this.shownNotes.set(path, cached);
      return cached.parsed;
    }
    const parsed = safeParse(path, text);
    if (cached) this.shownChars -= cached.text.length;
    this.shownNotes.set(path, { text, parsed });
    this.shownChars += text.length;
    for (const [oldest, entry] of this.shownNotes) {
      if (this.shownChars <= SHOWN_NOTES_CHARS || oldest === path) break;
      this.shownNotes.delete(oldest);
      this.shownChars -= entry.text.length;
    }
    return parsed;
  }

  /**
   * How many notes hold `term` exactly, in any field. MiniSearch keeps this in its term index but
   * does not publish it; the shape read here (term → field → note → frequency) is pinned by a test,
   * so an upgrade that changes it fails loudly instead of silently ranking worse.
   */
  notesWithTerm(term: string): number {
    const fields = (this.engine as unknown as { _index: { get(term: string): Map<number, Map<number, number>> | undefined } })._index.get(term);
    if (!fields) return 0;
    let most = 0;
    for (const notes of fields.values()) most = Math.max(most, notes.size);
    return most;
  }

  private tagExists(tag: string): boolean {
    for (const note of this.notes.values()) {
      if (note.tags.includes(tag) || note.tags.some((t) => t.startsWith(`${tag}/`))) return true;
    }
    return false;
  }

  private tagOnly(tags: string[]): RankedHit[] {
    const hits: RankedHit[] = [];
    for (const note of this.notes.values()) {
      if (!this.hasAllTags(note.path, tags)) continue;
      hits.push({
        path: note.path,
        score: 1,
        docTerms: new Map(),
        explanation: {
          termWeights: {},
          termNotes: {},
          matchedTerms: [],
          missingTerms: [],
          fields: { tags: tags.map((t) => `#${t}`) },
          parts: [{ name: "tag", detail: `has #${tags.join(", #")}`, weight: 1 }],
        },
      });
    }
    return hits.sort((a, b) => this.notes.get(a.path)!.title.localeCompare(this.notes.get(b.path)!.title));
  }

  private hasAllTags(path: string, tags: string[]): boolean {
    const note = this.notes.get(path);
    if (!note) return false;
    return tags.every((tag) => note.tags.includes(tag) || note.tags.some((t) => t.startsWith(`${tag}/`)));
  }

  private async keepPhraseMatches(ranked: RankedHit[], parsed: ParsedQuery, store: NoteStore, limit: number): Promise<RankedHit[]> {
    const kept: RankedHit[] = [];
    // Phrases are checked against the text itself, so only a bounded number of candidates are read.
    const candidates = ranked.slice(0, Math.max(limit * 10, 100));
    const texts = await readMany(
      store,
      candidates.map((c) => c.path),
    );
    for (let i = 0; i < candidates.length && kept.length < limit; i++) {
      const text = texts[i];
      if (typeof text !== "string") continue;
      const folded = foldForPhraseCheck(text);
      const found = parsed.phrases.filter((p) => folded.includes(` ${foldForPhraseCheck(p).trim()} `));
      if (found.length !== parsed.phrases.length) continue;
      const hit = candidates[i];
      hit.explanation.parts.push({ name: "phrase", detail: `contains "${parsed.phrases.join('", "')}"`, weight: 0 });
      kept.push(hit);
    }
    return kept;
  }

  // ── what others ask of the index ─────────────────────────────────────────────────────────

  status(): IndexStatus {
    const problems: IndexStatus["problems"] = [];
    for (const [path, problem] of this.fileProblems) problems.push({ path, problem });
    for (const note of this.notes.values()) for (const problem of note.problems) problems.push({ path: note.path, problem });
    return { notes: this.notes.size, lastUpdated: this.lastUpdated, state: this.state, problems };
  }

  notesWithSourceUrl(canonicalUrl: string): string[] {
    return Array.from(this.bySource.get(canonicalUrl) ?? []);
  }

  note(path: string): IndexedNote | undefined {
    return this.notes.get(path);
  }

  paths(): string[] {
    return Array.from(this.notes.keys());
  }

  onChange(listener: (status: IndexStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────

  private engineOptions() {
    const analyzer = this.analyzer;
    return {
      idField: "path",
      fields: [...FIELDS],
      storeFields: [],
      tokenize: (text: string) => analyzer.terms(text),
      processTerm: (term: string) => term,
      autoVacuum: { minDirtCount: 200, minDirtFactor: 0.1, batchSize: 1000, batchWait: 10 },
    };
  }

  private createEngine(): MiniSearch<EngineDoc> {
    return new MiniSearch<EngineDoc>(this.engineOptions());
  }

  private reset(): void {
    this.engine = this.createEngine();
    this.notes.clear();
    this.bySource.clear();
    this.fileProblems.clear();
  }

  private indexText(path: string, text: string, mtime: number, size: number): void {
    const problems: NoteProblem[] = [];
    let body = text;
    if (text.length > this.maxNoteBytes) {
      body = text.slice(0, this.maxNoteBytes);
      problems.push({ kind: "too_large", message: `Only the first ${Math.round(this.maxNoteBytes / 1000)} kB were indexed.` });
    }
    const parsed = safeParse(path, body);
    problems.push(...parsed.problems);
    this.discardNote(path);
    this.fileProblems.delete(path);
    this.engine.add(toEngineDoc(parsed));
    this.rememberNote({
      path,
      mtime,
      size,
      title: parsed.title,
      aliases: parsed.aliases,
      tags: parsed.tags,
      sourceUrls: parsed.sourceUrls,
      problems,
    });
  }

  private recordUnreadable(path: string, problem: NoteProblem): void {
    this.discardNote(path);
    this.fileProblems.set(path, problem);
  }

  private rememberNote(note: IndexedNote): void {
    this.notes.set(note.path, note);
    for (const url of note.sourceUrls) {
      const canonical = this.canonicalize(url);
      if (!canonical) continue;
      let set = this.bySource.get(canonical);
      if (!set) this.bySource.set(canonical, (set = new Set()));
      set.add(note.path);
    }
  }

  private discardNote(path: string): void {
    const note = this.notes.get(path);
    if (!note) return;
    this.notes.delete(path);
    if (this.engine.has(path)) this.engine.discard(path);
    for (const url of note.sourceUrls) {
      const canonical = this.canonicalize(url);
      if (!canonical) continue;
      const set = this.bySource.get(canonical);
      set?.delete(path);
      if (set && set.size === 0) this.bySource.delete(canonical);
    }
  }

  private touch(): void {
    this.lastUpdated = this.clock.now();
    if (this.state === "empty") this.state = "ready";
    this.emit();
  }

  private setState(state: IndexStatus["state"]): void {
    this.state = state;
    this.emit();
  }

  private emit(): void {
    if (this.listeners.size === 0) return;
    const status = this.status();
    for (const listener of this.listeners) listener(status);
  }
}

export interface RankedHit {
  path: string;
  score: number;
  /** Terms of the note (as indexed) that matched the query, exact, prefix or fuzzy → the query word. */
  docTerms: Map<string, string>;
  explanation: SearchExplanation;
}

interface Candidate {
  path: string;
  textScore: number;
  /** Indices of the query terms the note matched. */
  matched: number[];
  /** MiniSearch's note term → fields record of each matched term, in the order of `matched`. */
  matches: Record<string, string[]>[];
}

/**
 * Note term → fields it matched in, and note term → the query word whose lookup found it (a fuzzy
 * "garden" belongs to "gardan"; an exact match names the word best, else the first word that
 * reached it).
 */
function matchesOf(c: Candidate, terms: QueryTerm[]): { match: Record<string, string[]>; wordOf: Record<string, string> } {
  const match: Record<string, string[]> = {};
  const wordOf: Record<string, string> = {};
  // In the order of the query (terms were looked up rarest first), so explanations read naturally.
  const order = c.matched.map((_, i) => i).sort((a, b) => c.matched[a] - c.matched[b]);
  order.forEach((i) => {
    const record = c.matches[i];
    const qt = terms[c.matched[i]];
    for (const [docTerm, fields] of Object.entries(record)) {
      if (docTerm === qt.term || !(docTerm in wordOf)) wordOf[docTerm] = qt.word;
      const list = (match[docTerm] ??= []);
      for (const f of fields) if (!list.includes(f)) list.push(f);
    }
  });
  return { match, wordOf };
}

interface QueryTerm {
  /** The analysed term searched for. */
  term: string;
  /** The word the user typed that produced it. */
  word: string;
  weight: number;
  /** Terms of one group stand for the same part of the question (a word and its synonyms). */
  group: number;
  synonym: boolean;
}

function queryTerms(parsed: ParsedQuery, analyzer: Analyzer, synonyms: Map<string, string[]>): QueryTerm[] {
  const out: QueryTerm[] = [];
  const seen = new Set<string>();
  let group = 0;
  for (const word of parsed.words) {
    const analyzed = analyzer.analyzeWord(word);
    analyzed.forEach((term, i) => {
      if (seen.has(term)) return;
      seen.add(term);
      // Parts split off a compound or camelCase word count for less than the word itself.
      const g = group++;
      out.push({ term, word, weight: i === 0 ? 1 : 0.5, group: g, synonym: false });
      for (const other of synonyms.get(term) ?? []) {
        if (seen.has(other)) continue;
        seen.add(other);
        out.push({ term: other, word, weight: SYNONYM_WEIGHT, group: g, synonym: true });
      }
    });
  }
  return out;
}

/** A synonym's matches are worth this share of the word's own. */
const SYNONYM_WEIGHT = 0.6;

/** Edit distance allowed for a query term: none for short words, where a typo is another word. */
export function fuzzyDistance(term: string, ranking: Pick<RankingOptions, "fuzzyMinLength" | "twoEditsMinLength"> = DEFAULT_RANKING): number | false {
  if (term.length < ranking.fuzzyMinLength) return false;
  if (term.length < ranking.twoEditsMinLength) return 1;
  return 2;
}

function wordForDocTerm(docTerm: string, terms: QueryTerm[]): string {
  let best = terms[0];
  for (const t of terms) {
    if (t.term === docTerm) return t.word;
    if (docTerm.startsWith(t.term) && (!best.term || t.term.length > (docTerm.startsWith(best.term) ? best.term.length : 0))) best = t;
  }
  return best?.word ?? docTerm;
}

function toEngineDoc(note: ParsedNote): EngineDoc {
  const headings: string[] = [];
  const body: string[] = [];
  for (const section of note.sections) {
    if (section.heading) headings.push(section.heading);
    body.push(section.text);
  }
  return {
    path: note.path,
    title: note.title,
    lead: leadOf(note),
    aliases: note.aliases.join(" \n "),
    headings: headings.join(" \n "),
    tags: note.tags.join(" "),
    location: note.path.replace(/\.md$/i, ""),
    body: body.join("\n"),
  };
}

/** Characters of a note's opening that count as its lead. */
const LEAD_CHARS = 300;

function leadOf(note: ParsedNote): string {
  for (const section of note.sections) {
    const text = section.text.trim();
    if (text) return text.length <= LEAD_CHARS ? text : text.slice(0, text.lastIndexOf(" ", LEAD_CHARS) > 0 ? text.lastIndexOf(" ", LEAD_CHARS) : LEAD_CHARS);
  }
  return "";
}

function safeParse(path: string, text: string): ParsedNote {
  try {
    return parseNote(path, text);
  } catch (error) {
    // The parser is meant never to throw; if it does, the note is still searchable as plain text.
    const title = path.replace(/^.*\//, "").replace(/\.md$/i, "");
    return {
      path,
      title,
      aliases: [],
      tags: [],
      sourceUrls: [],
      links: [],
      frontmatter: {},
      sections: [{ heading: "", level: 0, headingPath: [], start: 0, end: text.length, text, line: 1 }],
      problems: [{ kind: "frontmatter", message: `Could not be parsed (${errorMessage(error)}); indexed as plain text.` }],
    };
  }
}

async function readMany(store: NoteStore, paths: string[]): Promise<(string | NoteProblem)[]> {
  const out = new Array<string | NoteProblem>(paths.length);
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const i = next++;
      try {
        out[i] = await store.read(paths[i]);
      } catch (error) {
        out[i] = { kind: "read", message: `Could not be read: ${errorMessage(error)}` };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, paths.length) }, worker));
  return out;
}

function foldForPhraseCheck(text: string): string {
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  let out = " ";
  for (const w of words) {
    let folded = w.toLowerCase().normalize("NFD").replace(/\p{M}/gu, "");
    // Scripts written without spaces give no word boundaries: each character counts as a word,
    // so a quoted phrase can start in the middle of a run.
    if (CJK_CHAR.test(folded)) folded = folded.replace(CJK_CHARS, " $& ").trim().replace(/ +/g, " ");
    out += folded + " ";
  }
  return out;
}

function normalizeFolders(folders: string[]): string[] {
  return folders
    .map((f) => f.trim().replace(/^\/+|\/+$/g, ""))
    .filter(Boolean)
    .map((f) => `${f}/`);
}

function basicCanonicalUrl(url: string): string | null {
  const trimmed = url.trim();
  return trimmed ? trimmed : null;
}

function describeBoosts(boosts: Record<string, number>): string {
  return Object.entries(boosts)
    .filter(([, b]) => b !== 1)
    .map(([f, b]) => `${f} ×${b}`)
    .join(", ");
}

