// "Why it matched" on an evidence card: the reasons in words ("Matches crdt in the title and
// headings; missing server"), and the raw figures behind them (score, each signal's weight) one
// more click away, for whoever wants to see how the rank was made.
import { scoreFigure } from "../evidence/labels";
import type { Signal, VaultRow } from "../evidence/research-pack";
import { NAMED_PART } from "../index/ranking/note-names";
import { FIELDS, type Field } from "../index/search-engine";

type Retrieval = Pick<VaultRow["retrieval"], "score" | "signals" | "matched_terms" | "missing_terms" | "fusion"> & { lanes?: readonly { name: string }[] };

/** The index's fields as people call them. */
const FIELD_WORDS: Record<Field, string> = {
  title: "title",
  aliases: "aliases",
  lead: "opening lines",
  headings: "headings",
  tags: "tags",
  location: "folder",
  body: "text",
  properties: "properties",
};
/** The signal each field leaves on a vault row (research/stages/local-retrieval.ts names them). */
const FIELD_OF_SIGNAL = new Map<string, Field>(FIELDS.map((f) => [`field:${f}`, f]));

/** Signals whose own detail reads as a reason; the rest (BM25, coverage weights) are figures. */
const WORDED_SIGNALS: ReadonlySet<string> = new Set([
  "title match",
  NAMED_PART,
  "vault language",
  "exact_tag",
  "also_found_by",
  "source_url",
  "provider_rank",
  "several_providers",
  "official_site",
  "primary_source",
  "documentation",
  "recent",
  "query_terms",
]);

/**
 * `title` is the card's title, which describes its "Why it matched": every card has one, and reached
 * by Tab alone, five read "Why it matched, collapsed" and nothing said which note or page.
 */
export function renderWhy(card: HTMLElement, retrieval: Retrieval, title?: HTMLElement): void {
  const details = card.createEl("details", { cls: "vault-research-why" });
  const summary = details.createEl("summary", { text: "Why it matched" });
  if (title?.id) summary.setAttr("aria-describedby", title.id);
  const body = details.createDiv({ cls: "vault-research-why-body" });
  const words = body.createEl("p", { cls: "vault-research-why-words" });
  matchSentence(words, retrieval);
  const reasons = retrieval.signals.filter((s) => WORDED_SIGNALS.has(s.name)).map((s) => sentenceCase(s.detail));
  if (reasons.length > 0) {
    const list = body.createEl("ul", { cls: "vault-research-why-reasons" });
    for (const reason of reasons) list.createEl("li", { text: reason });
  }
  const figures = body.createEl("details", { cls: "vault-research-scores" });
  figures.createEl("summary", { text: "Scores" });
  const list = figures.createEl("ul");
  list.createEl("li", { text: scoreWords(retrieval) });
  for (const s of retrieval.signals) list.createEl("li", { text: signalFigure(s) });
}

/** "Matches *crdt* and *merge* in the title and headings; missing *server*." */
function matchSentence(el: HTMLElement, retrieval: Retrieval): void {
  const found = new Set(retrieval.signals.map((s) => FIELD_OF_SIGNAL.get(s.name)));
  const fields = FIELDS.filter((f) => found.has(f));
  const matched = retrieval.matched_terms;
  if (matched.length > 0) {
    el.appendText("Matches ");
    terms(el, matched);
    if (fields.length > 0) el.appendText(` in the ${joinWords(fields.map((f) => FIELD_WORDS[f]))}`);
  } else {
    el.appendText(fields.length > 0 ? `Words of the question are in the ${joinWords(fields.map((f) => FIELD_WORDS[f]))}` : "Found for this question");
  }
  if (retrieval.missing_terms.length > 0) {
    el.appendText("; missing ");
    terms(el, retrieval.missing_terms);
  }
  el.appendText(".");
}

function terms(el: HTMLElement, words: readonly string[]): void {
  words.forEach((word, i) => {
    if (i > 0) el.appendText(i === words.length - 1 ? " and " : ", ");
    el.createEl("em", { text: word, attr: { dir: "auto" } });
  });
}

function joinWords(words: readonly string[]): string {
  const unique = [...new Set(words)];
  return unique.length < 2 ? (unique[0] ?? "") : `${unique.slice(0, -1).join(", ")} and ${unique[unique.length - 1]}`;
}

function sentenceCase(text: string): string {
  return text === "" ? text : text[0].toUpperCase() + text.slice(1);
}

/**
 * The score, named for what it measures: the cards are in the order the run found them (the words'
 * ranking fused with this vault's meaning, or with the vectors at a dial level above 1), so a bare
 * "Score 3.20" above a card's "Score 9.10" would read as a mistake. A vault row of a dial run above
 * level 1 carries the fused RRF score (local-retrieval.ts withDialMatch); another vault row its words' score.
 */
function scoreWords(retrieval: Retrieval): string {
  const lanes = retrieval.lanes?.map((l) => l.name) ?? [];
  if (lanes.includes("external_search")) return `Score ${retrieval.score.toFixed(2)}`;
  const fusion = retrieval.fusion;
  // At level 1 the vault's language reorders the words' ranking: the score the cards are in the
  // order of is the fused one, the words' own beside it (it is what the judge weighs).
  if (fusion && fusion.fused_with === "vault_language") {
    const words = fusion.words_rank === null ? "not ranked by its words" : `words #${fusion.words_rank}, words score ${scoreFigure(fusion.words_score ?? 0, false)}`;
    return `Fused score (words and the vault's language) ${scoreFigure(fusion.score, true)} · ${words}`;
  }
  if (lanes.includes("note_vector")) return `Fused score (words and meaning, RRF) ${scoreFigure(retrieval.score, true)}`;
  return `Words score ${scoreFigure(retrieval.score, true)}`;
}

function signalFigure(s: Signal): string {
  return `${s.name}: ${s.detail} (${s.weight.toFixed(2)})`;
}
