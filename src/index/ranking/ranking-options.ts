// The knobs of ranking, in one place, with the values tuned against evals/search
// (`npm run eval:search`). VaultIndex takes a partial set; evaluation sweeps change them live.
import type { Field } from "../search-engine";
import type { AssociationLimits } from "../associations/term-associations";
import type { ExpansionWeights } from "./query-terms";
import { DEFAULT_VAULT_LANGUAGE, type VaultLanguageOptions } from "../vault-language/language-lane";

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
  /** The title bonus is also scaled by (share of the query's weight the title's words carry)^this; 0 ignores it. */
  titleQueryShare?: number;
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
  /** Weights of a word's stand-ins (synonyms, the vault's associates); defaults in query-terms.ts. */
  expansion?: ExpansionWeights;
  /** Which associations are strong enough to expand a query with; null (the default) turns expansion
   * off, and the index then keeps no association model (set it when the index is made). */
  associations?: AssociationLimits | null;
  /** The vault-language lane (vault-language/): meanings learned from the notes, fused with the
   * words' ranking. On by default; null turns it off, and the index then learns nothing. */
  vaultLanguage?: VaultLanguageOptions | null;
  /** A note the question names (title, file name or alias of two words or more, or one camelCase
   * word written so; note-names.ts) is lifted to this place (0-based) among the other notes, or
   * first when its name is the whole question; null turns both off. */
  namedPlace?: number | null;
}

export const DEFAULT_RANKING: RankingOptions = {
  fieldBoosts: { title: 5, aliases: 4, lead: 4, location: 1.5, headings: 2, tags: 2.5, body: 1, properties: 1 },
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
  namedPlace: 2,
  // Measured neutral on the held-out sets (evals/README.md): off by default, kept for evaluation.
  associations: null,
  vaultLanguage: DEFAULT_VAULT_LANGUAGE,
};

/**
 * The ranking for "the closest notes" when no note matched at all: every word from 3 letters also
 * a prefix, typos from 4 letters (two from 7), tried however many notes hold the word exactly.
 * Noisy on purpose, so only asked for after a search found nothing, and shown as no match.
 */
export function looseRanking(ranking: RankingOptions): RankingOptions {
  return { ...ranking, prefixMinLength: 3, fuzzyMinLength: 4, twoEditsMinLength: 7, fuzzyBelowNotes: Number.POSITIVE_INFINITY };
}

/** Edit distance allowed for a query term: none for short words, where a typo is another word. */
export function fuzzyDistance(term: string, ranking: Pick<RankingOptions, "fuzzyMinLength" | "twoEditsMinLength"> = DEFAULT_RANKING): number | false {
  if (term.length < ranking.fuzzyMinLength) return false;
  if (term.length < ranking.twoEditsMinLength) return 1;
  return 2;
}

/** The ranking for the `index.vaultLanguage` setting: the defaults when on, no lane when off. */
export function vaultLanguageRanking(on: boolean): Partial<RankingOptions> {
  return on ? {} : { vaultLanguage: null };
}
