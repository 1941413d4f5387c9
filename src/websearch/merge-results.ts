// Many sources, one list: the same page under two addresses (`samePageKey`: http and https, `www.`
// and `m.`, its AMP copy, as well as everything the canonical URL already folds) becomes one result
// that remembers who else found it (`alsoFoundBy`), under the better of the addresses, and the list
// is ordered by a score every source can be put on.
//
// Scores: a source's own relevance scores are not comparable across sources (Exa's 0–1, SearXNG's
// sums, GitHub's near-constant 1.0), and most sources give none. Each result is normalised within
// its own answer: 1/rank where the source gives no scores; where it does, the mean of score/best
// score and 1/rank, so a flat list of scores cannot lift a source's tail above another's head.
// That is multiplied by the source's weight (below). A page found by several sources keeps its
// best score. Equal scores keep the interleaved order: 1st of each source, then 2nd of each…
import { isLesserAddress, samePageKey } from "./canonical-url";
import { PROVIDER_NAMES } from "../provider-names";
import type { ProviderName, ProviderResponse, ProviderResult, SourceSignal } from "./types";

/**
 * Default weights. General web search (Brave, Exa, Tavily) answers the question itself: 1.
 * SearXNG mixes engines of uneven quality: 0.9. The specialist sources fit only the questions
 * routed to them and are then as good a match as any: arXiv, PubMed, GitHub, Stack Exchange 0.9;
 * Wikipedia gives background more often than the answer: 0.8; Hacker News is discussion, good for
 * "what do people think", weaker as evidence: 0.7.
 */
export const DEFAULT_SOURCE_WEIGHTS: Record<ProviderName, number> = {
  brave: 1,
  "brave-web": 1,
  exa: 1,
  tavily: 1,
  searxng: 0.9,
  arxiv: 0.9,
  pubmed: 0.9,
  github: 0.9,
  stackexchange: 0.9,
  wikipedia: 0.8,
  hackernews: 0.7,
};

/** How a result's place in the merged list was worked out, kept as data for --json and the trace. */
export interface MergeScore {
  /** `weight × normalised`: what the list is ordered by. */
  value: number;
  /** 0–1 within its source's answer. */
  normalised: number;
  weight: number;
  basis: "rank" | "score_and_rank";
}

/** A page as the run shows it: found first by `provider`, possibly by others too. */
export interface MergedResult extends ProviderResult {
  provider: ProviderName;
  /** "Brave": for the `Outside vault · Brave · ephemeral` label. */
  providerLabel: string;
  /** Other providers that returned the same canonical URL, in the order asked. */
  alsoFoundBy: ProviderName[];
  /** Position in the provider's own answer (`rank` is the position in the merged list). */
  providerRank: number;
  merge: MergeScore;
}

/** Each result's normalised score within its own answer. */
export function normalisedScores(results: readonly ProviderResult[]): Pick<MergeScore, "normalised" | "basis">[] {
  const scores = results.map((r) => r.score);
  const best = Math.max(0, ...scores.filter((s): s is number => typeof s === "number" && Number.isFinite(s)));
  const scored = results.length > 0 && best > 0 && scores.every((s) => typeof s === "number" && Number.isFinite(s) && s >= 0);
  return results.map((r) => {
    const byRank = 1 / Math.max(1, r.rank);
    return scored ? { normalised: round((r.score! / best + byRank) / 2), basis: "score_and_rank" } : { normalised: round(byRank), basis: "rank" };
  });
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

/** Folds results that are the same page (`samePageKey`) into one and orders the list by weighted score. */
export function mergeResults(responses: readonly ProviderResponse[], weights: Record<ProviderName, number> = DEFAULT_SOURCE_WEIGHTS): MergedResult[] {
  const merged: MergedResult[] = [];
  const byUrl = new Map<string, MergedResult>();
  const normalised = responses.map((r) => normalisedScores(r.results));
  const depth = Math.max(0, ...responses.map((r) => r.results.length));
  for (let i = 0; i < depth; i++) {
    responses.forEach((response, n) => {
      const result = response.results[i];
      if (!result) return;
      const weight = weights[response.provider] ?? 1;
      const score: MergeScore = { ...normalised[n][i], weight, value: round(weight * normalised[n][i].normalised) };
      const key = samePageKey(result.canonicalUrl) ?? result.canonicalUrl;
      const existing = byUrl.get(key);
      if (existing) return foldInto(existing, result, response.provider, score);
      const entry = toMerged(result, response.provider, score, merged.length + 1);
      byUrl.set(key, entry);
      merged.push(entry);
    });
  }
  // Array.prototype.sort is stable: equal scores keep the interleaved order.
  return merged.sort((a, b) => b.merge.value - a.merge.value).map((r, index) => ({ ...r, rank: index + 1 }));
}

function toMerged(result: ProviderResult, provider: ProviderName, merge: MergeScore, rank: number): MergedResult {
  return {
    ...result,
    highlights: [...result.highlights],
    ...(result.signals ? { signals: [...result.signals] } : {}),
    provider,
    providerLabel: PROVIDER_NAMES[provider].label,
    alsoFoundBy: [],
    providerRank: result.rank,
    rank,
    merge,
  };
}

/**
 * The first finder's fields win; what it lacked (a title too) is taken from the later finder, and so
 * is the address when the first sent a lesser one (an AMP copy, a mobile edition, plain http): the
 * row links to, and promotes, the page itself.
 */
function foldInto(target: MergedResult, other: ProviderResult, provider: ProviderName, score: MergeScore): void {
  if (provider !== target.provider && !target.alsoFoundBy.includes(provider)) target.alsoFoundBy.push(provider);
  // The addresses as sent: a canonical URL has dropped the tracking that makes one a lesser door.
  if (isLesserAddress(target.url, other.url)) {
    target.url = other.url;
    target.canonicalUrl = other.canonicalUrl;
    target.domain = other.domain;
  }
  if (score.value > target.merge.value) target.merge = score;
  for (const highlight of other.highlights) {
    if (!target.highlights.includes(highlight)) target.highlights.push(highlight);
  }
  target.signals = foldSignals(target.signals, other.signals);
  if (untitled(target) && !untitled(other)) target.title = other.title;
  target.snippet ??= other.snippet;
  if (target.text === undefined && other.text !== undefined) {
    target.text = other.text;
    if (other.truncated) target.truncated = true;
  }
  target.summary ??= other.summary;
  target.author ??= other.author;
  target.publishedAt ??= other.publishedAt;
}

/**
 * Whether a source sent no title for the result: each names such a result by its domain (Exa's
 * `title: null`, a Hacker News story without one), and a row found by another source with the
 * page's real title went on showing only "en.wikipedia.org".
 */
function untitled(result: ProviderResult): boolean {
  return result.title === "" || result.title === result.domain;
}

/** Signals of kinds the first finder did not have are added; its own are kept as they were. */
function foldSignals(mine: SourceSignal[] | undefined, theirs: SourceSignal[] | undefined): SourceSignal[] | undefined {
  if (!theirs || theirs.length === 0) return mine;
  const kinds = new Set((mine ?? []).map((s) => s.kind));
  const added = theirs.filter((s) => !kinds.has(s.kind));
  return added.length > 0 || mine ? [...(mine ?? []), ...added] : mine;
}
