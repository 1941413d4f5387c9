// The related expansion: a second, bounded local pass before the verdict, along the best notes'
// links, backlinks and tags. When the lexical judge finds the vault's evidence short of enough and
// names words missing, the notes the best two link to, are linked from or share a rare tag with
// are searched for the question; the few (≤ 3) that hold a word their note lacks are weighed
// by the judge, each alone and with its note as a pair, and those the first search had not found
// join the pack right after the notes they were found from. Nothing is added when the judge already says enough, when nothing is missing,
// or when no neighbour holds a missing word.
import { foldCase } from "../../index/tokenize";
import { resultsAmong } from "../../index/links/results-among";
import type { VaultLinks } from "../../index/links/vault-links";
import type { Analyzer } from "../../index/tokenize";
import type { SearchResult } from "../../index/types";
import type { VaultIndex } from "../../index/vault-index";
import type { QueryPlan } from "../../evidence/research-pack";
import type { NoteStore } from "../../ports";
import { termMatched, type WeighedResult } from "./judge-coverage";
import { DEFAULT_JUDGE, judgeEvidence, type JudgeOptions, type FoundBy, type JudgeVerdict, type LinkRelation, type RelatedResult } from "./judge";
import { indexQueryFor, weighedForJudge } from "./local-retrieval";

export interface RelatedExpansionOptions {
  /** Top notes whose neighbours are looked at (default 2). */
  seeds: number;
  /** Neighbours that may join the pack (default 3, the most the design allows). */
  maxAdded: number;
  /** A tag carried by more notes than this says little about a note (default 30). */
  maxTagNotes: number;
  /** How far down the question's ranking a neighbour may be and still be found (default 100). */
  depth: number;
}

export const DEFAULT_RELATED_EXPANSION: RelatedExpansionOptions = { seeds: 2, maxAdded: 3, maxTagNotes: 30, depth: 100 };

export interface RelatedExpansion {
  /** The judge's verdict on the first pass alone. */
  lexical: JudgeVerdict;
  /** The verdict with the related notes weighed too (the lexical one when none was added). */
  verdict: JudgeVerdict;
  /** The related notes the judge weighed (≤ maxAdded), each with the note it was found from and how. */
  related: RelatedResult[];
  /** Those of them the first search had not found: they join the pack. */
  added: RelatedResult[];
  /** The search results in pack order: the first pass with the added notes after their seeds. */
  results: SearchResult[];
  /** Neighbours looked at (before the missing-word test). */
  considered: number;
  /** Whether the verdict rests on a related note (else the first search's notes decided it). */
  decided: boolean;
}

export interface RelatedExpansionDeps {
  index: Pick<VaultIndex, "rank" | "note" | "shownNote">;
  store: NoteStore;
  links: VaultLinks;
  analyzer: Analyzer;
  /** The run's: a Stop ends the wait for the related notes' reads at once. */
  signal?: AbortSignal;
}

export async function expandAlongLinks(plan: QueryPlan, results: WeighedResult[], deps: RelatedExpansionDeps, options: RelatedExpansionOptions = DEFAULT_RELATED_EXPANSION, judge: JudgeOptions = DEFAULT_JUDGE): Promise<RelatedExpansion> {
  const lexical = judgeEvidence(plan, results, judge);
  const unchanged: RelatedExpansion = { lexical, verdict: lexical, related: [], added: [], results, considered: 0, decided: false };
  if (lexical.verdict === "enough_evidence" || results.length === 0 || lexical.missing_terms.length === 0) return unchanged;
  const seeds = results.slice(0, options.seeds);
  const neighbours = neighboursOf(seeds, deps.links, options);
  if (neighbours.size === 0) return unchanged;
  const found = await resultsAmong(deps.index, deps.store, indexQueryFor(plan), new Set(neighbours.keys()), { analyzer: deps.analyzer, depth: options.depth, signal: deps.signal });
  const required = plan.required_terms.length > 0 ? plan.required_terms : plan.terms;
  const seedOf = new Map(seeds.map((s) => [s.path, s]));
  // A neighbour must hold a word of the question its own seed lacks: the part that note misses.
  const holdsMissing = (r: SearchResult) => {
    const seed = seedOf.get(neighbours.get(r.path)!.from)!;
    return required.some((term) => !termMatched(term, seed.explanation) && termMatched(term, r.explanation));
  };
  // Weighed as the judge weighs the first search's notes: a word a neighbour has only in a list of links is not the part it adds.
  const weighed = await weighedForJudge(found.filter(holdsMissing), deps.store, deps.analyzer);
  const related = weighed
    .filter(holdsMissing)
    .slice(0, options.maxAdded)
    .map((result) => ({ result, found: neighbours.get(result.path)! }));
  if (related.length === 0) return { ...unchanged, considered: neighbours.size };
  const verdict = judgeEvidence(plan, results, judge, related);
  const decided = verdict.figures.foundBy === "link";
  const known = new Set(results.map((r) => r.path));
  const added = related.filter((r) => !known.has(r.result.path));
  return { lexical, verdict, related, added, results: inPackOrder(results, added), considered: neighbours.size, decided };
}

/**
 * Each seed's outlinks, backlinks and notes sharing a rare tag, with how each was reached (first
 * way wins). Notes the first search found lower down count too: the judge weighs only its top few
 * alone, and a linked note further down may hold the part the best one lacks.
 */
function neighboursOf(seeds: SearchResult[], links: VaultLinks, o: RelatedExpansionOptions): Map<string, LinkFound> {
  const out = new Map<string, LinkFound>();
  // Two seeds that link to each other count too: the judge has only weighed them as a pair when the question names two parts.
  const add = (path: string, seed: SearchResult, relation: LinkRelation) => {
    if (path !== seed.path && !out.has(path)) out.set(path, { kind: "link", from: seed.path, fromTitle: seed.title, relation });
  };
  for (const seed of seeds) {
    for (const path of links.graph.outlinks(seed.path)) add(path, seed, { kind: "links_to" });
    for (const path of links.graph.backlinks(seed.path)) add(path, seed, { kind: "linked_from" });
  }
  for (const seed of seeds) {
    for (const tag of seed.tags) {
      const tagged = links.notesTagged(foldCase(tag));
      if (tagged.size > o.maxTagNotes) continue;
      for (const path of tagged) add(path, seed, { kind: "shares_tag", tag });
    }
  }
  return out;
}

type LinkFound = Extract<FoundBy, { kind: "link" }>;

/** The first pass's results with each added note right after the note it was found from. */
function inPackOrder(results: SearchResult[], added: RelatedResult[]): SearchResult[] {
  const out: SearchResult[] = [];
  for (const r of results) {
    out.push(r);
    for (const a of added) if (a.found.kind === "link" && a.found.from === r.path) out.push(a.result);
  }
  return out;
}
