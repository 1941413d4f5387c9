// The contracts of the vault index: what a parsed note looks like, what a search returns and
// how a result explains itself. Plain data, so results can be serialised into packs and traces.
import type { RebuildReason } from "./rebuild-reason";

/** A heading-delimited part of a note. Offsets are UTF-16 indices into the note's full text. */
export interface NoteSection {
  /** Heading text without `#`s; "" for the part before the first heading. */
  heading: string;
  /** 0 for the preamble, 1–6 for `#`…`######`. */
  level: number;
  /** Headings from the top of the note down to this one (for "Parent > Child" display). */
  headingPath: string[];
  /** Start of the section (the heading line itself, or the end of frontmatter for the preamble). */
  start: number;
  /** End of the section (exclusive). */
  end: number;
  /** The searchable text of the section: markup reduced to words (links as text, fences kept). */
  text: string;
  /** 1-based line of the heading (or of the first body line for the preamble). */
  line: number;
}

export type NoteProblemKind = "frontmatter" | "encoding" | "read" | "too_large";

/** Something odd about a note that did not stop it being indexed. */
export interface NoteProblem {
  kind: NoteProblemKind;
  message: string;
}

/** A note after parsing: everything search and research need, nothing the renderer needs. */
export interface ParsedNote {
  path: string;
  /** Frontmatter `title` (or a Logseq `title::`), else the note's one H1 when no body text comes before it, else the file name without `.md`. */
  title: string;
  aliases: string[];
  /** Lower-cased, without `#`, nested tags expanded (`a/b` yields `a/b` and `a`). */
  tags: string[];
  /** Raw values of the `source` and `url` properties (for duplicate detection of web results). */
  sourceUrls: string[];
  /** Link targets of `[[wikilinks]]`, `![[embeds]]` and markdown links to notes. */
  links: string[];
  /** Frontmatter as parsed (empty when missing or broken). */
  frontmatter: Record<string, unknown>;
  sections: NoteSection[];
  problems: NoteProblem[];
}

/** One way a result earned its score, e.g. `{ name: "title", detail: "matched \"tar\"", weight: 12.4 }`. */
export interface ScorePart {
  name: string;
  detail: string;
  weight: number;
}

/** How a term's uses bunch together in note bodies (search-engine.ts termClumping), and over how many notes that was seen. */
export interface TermClumping {
  /** log2 of the notes a chance spread of its uses would reach, over the notes holding it. */
  clumping: number;
  notes: number;
}

/** Why a note ranked where it did. */
export interface SearchExplanation {
  /** Query terms that matched somewhere in the note (as the user typed them, normalised). */
  matchedTerms: string[];
  /** Query terms that matched nowhere in the note. */
  missingTerms: string[];
  /** Field → matched query terms, e.g. `{ title: ["tar"], body: ["tar", "extract"] }`. */
  fields: Record<string, string[]>;
  /** The score broken into parts that add up (approximately) to the final score. */
  parts: ScorePart[];
  /** Query word → its weight in this vault (inverse document frequency: rare words weigh more). */
  termWeights: Record<string, number>;
  /** Query word → how many notes matched it (exactly or approximately); 0 means the vault never uses it. */
  termNotes: Record<string, number>;
  /** Query word → how much its uses bunch together in a few notes, and in how many note bodies
   * (search-engine.ts termClumping): about 0 for an everyday word, more for a topic's word. Absent
   * for a word no note body holds. */
  termClumping?: Record<string, TermClumping>;
  /** How many notes the vault held when searched (what `termNotes` are shares of). */
  vaultNotes?: number;
  /** Words of the query looked up as an earlier word (the same term): "tasks" → "task". Absent when none. */
  foldedWords?: Record<string, string>;
  /** Query word the note lacks → the words this vault uses with it that the note has instead, with
   * the association's strength (0–1). Absent when no associate matched. */
  standIns?: Record<string, { term: string; strength: number }[]>;
  /** Set when the vault-language lane found the note near the question (see vault-language/):
   * its rank in that lane and the cosine similarity. */
  vaultLanguage?: { rank: number; similarity: number };
  /** Set on every result of a search the vault-language lane was fused into (see vault-language/fuse-lanes.ts):
   * the results are in the order of this fused score (RRF), not of `SearchResult.score`, which stays the words'. */
  fusion?: SearchFusion;
}

/** A result's place in the fusion of the words' ranking with the vault-language lane's. */
export interface SearchFusion {
  /** The fused score the results are ordered by: 1 / (k + words' rank) + the lane's share / (k + its rank). */
  score: number;
  /** The note's rank in the words' ranking; null when only the vault-language lane found it. */
  wordsRank: number | null;
  /** The words put it far ahead of the rest, or the question is its name: it was kept first, and
   * takes the fused score of the note it passed. */
  keptFirst?: true;
}

/** A span to highlight inside a snippet: [start, end) offsets into `snippet`. */
export type Highlight = [number, number];

export interface SectionHit {
  heading: string;
  headingPath: string[];
  level: number;
  line: number;
  /** Offsets of the whole section in the note. */
  start: number;
  end: number;
  /** A window of the section's text around the best match (may start/end with "…"). */
  snippet: string;
  highlights: Highlight[];
  /** Query words found in this section (heading or text), as the user typed them, normalised. */
  matchedTerms: string[];
  /** Query words found together inside the densest window of the section (about 40 words). */
  closeTerms: string[];
  score: number;
}

export interface SearchResult {
  path: string;
  title: string;
  /** The words' score (BM25 over the fields × coverage, title and name lifts). The order is this
   * score's unless the vault-language lane was fused in: then `explanation.fusion` gives the order's
   * score (and a note only that lane found scores 0 here). */
  score: number;
  tags: string[];
  /** Best sections first; at most a few. */
  sections: SectionHit[];
  explanation: SearchExplanation;
}

export interface SearchOptions {
  /** How many notes to return (default 10). */
  limit?: number;
  /** How many sections per note (default 3). */
  sectionsPerNote?: number;
  /** The user is still typing: the last word may be a prefix even when short. */
  asYouType?: boolean;
  /** Nothing matched: look for the closest notes by spelling (ranking-options.ts looseRanking). */
  loose?: boolean;
  /** Only notes it keeps are searched (the dial's folder and tag filters), applied while ranking. */
  keep?: (path: string) => boolean;
}

export interface IndexStatus {
  notes: number;
  /** ms since the epoch of the last change applied, or null before the first build. */
  lastUpdated: number | null;
  /** "idle" | "building" | "updating" — what the index is doing right now. */
  state: "empty" | "building" | "ready" | "updating";
  /** Notes indexed with problems, and files that could not be read at all. */
  problems: { path: string; problem: NoteProblem }[];
  /** The vault-language lane: being learned (or taken back) behind the ready index while search has no meanings yet;
   * learned again behind it (language-lane.ts `relearn`) while the meanings learned before still serve; or ready.
   * Absent when there is none. */
  vaultLanguage?: "learning" | "relearning" | "ready";
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

/** What a start-up sync did: "cache" when a saved index was loaded and diffed, "rebuild" (with the
 * reason) when it was built from scratch. */
export type SyncReport = SyncCounts & ({ mode: "cache"; rebuildReason?: undefined } | { mode: "rebuild"; rebuildReason: RebuildReason });

export interface SyncCounts {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  ms: number;
}
