// A search over a few given notes only (the neighbours of the best notes): the vault index ranks
// the query as usual, the hits outside `paths` are dropped, and the few left are read and given
// sections the way a search shows them. Ranking stays the index's own, so a neighbour's score,
// matched words and weights compare with the first search's. The sections are quoted from the
// index's shown parse (`VaultIndex.shownNote`: its cache and its note size limit), as the search
// quotes them: a note's blocks stay apart, code never runs into the prose after it, nor a table's
// rows into one line. Given the run's signal, a Stop ends the wait for those reads at once.
import type { NoteStore } from "../../ports";
import { parseQuery } from "../query";
import { readNotes } from "../read-notes";
import { buildSectionHits } from "../section-hits";
import type { Analyzer } from "../tokenize";
import type { SearchResult } from "../types";
import type { VaultIndex } from "../vault-index";
import { stoppedWaiting, unlessStopped } from "./unless-stopped";

export interface ResultsAmongOptions {
  /** The analyser the index was built with (same stemming), for the sections. */
  analyzer: Analyzer;
  /** How far down the ranking a note may be and still count (default 200). */
  depth?: number;
  sectionsPerNote?: number;
  /** The run's: when it aborts, the search stops waiting for the notes' reads (which cannot be aborted). */
  signal?: AbortSignal;
}

/** The notes of `paths` that match `query`, best first, as search results. */
export async function resultsAmong(index: Pick<VaultIndex, "rank" | "note" | "shownNote">, store: NoteStore, query: string, paths: ReadonlySet<string>, options: ResultsAmongOptions): Promise<SearchResult[]> {
  if (paths.size === 0) return [];
  if (options.signal?.aborted) throw stoppedWaiting();
  const hits = index.rank(parseQuery(query), options.depth ?? 200).filter((h) => paths.has(h.path));
  const texts = await unlessStopped(
    readNotes(
      store,
      hits.map((h) => h.path),
    ),
    options.signal,
  );
  const results: SearchResult[] = [];
  for (const [i, hit] of hits.entries()) {
    const note = index.note(hit.path);
    const text = texts[i];
    if (!note || typeof text !== "string") continue;
    // Only the part the index holds, as the search: a huge note parsed whole held the run up for seconds.
    const sections = buildSectionHits(index.shownNote(hit.path, text), hit.docTerms, options.analyzer, options.sectionsPerNote ?? 2);
    results.push({ path: hit.path, title: note.title, score: hit.score, tags: note.tags, sections, explanation: hit.explanation });
  }
  return results;
}
