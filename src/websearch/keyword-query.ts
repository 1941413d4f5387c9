// Keyword sources (Wikipedia, Hacker News, arXiv, GitHub, Stack Exchange, PubMed) match every word
// they are given, so "How do I configure y-websocket authentication?" finds nothing where
// "configure y-websocket authentication" finds the page. The question's filler words are dropped
// here; the words kept are still the user's own, in their order — never note text.
import { straightApostrophes } from "../text/apostrophes";
import { wordSet } from "../text/word-set";
import type { ProviderName } from "./types";

/** Question words, auxiliaries, pronouns and the commonest English function words. */
const fillerWords = wordSet(
  "a an the and or but nor of in on at to for from by with without about into onto over under " +
  "is are was were be been being am do does did done doing have has had having can could should " +
  "would will shall may might must " +
  "what which who whom whose when where why how whether " +
  "i me my we us our you your he him his she her it its they them their this that these those " +
  "there here any some " +
  "please tell explain show give find know want need anyone someone people think thinks " +
  "latest current currently today now recent recently new newest",
);

/**
 * Web search operators a user may type on purpose (`site:github.com`, `filetype:pdf`): general search
 * (Brave, SearXNG…) honours them; a keyword source searched them as text, and as it needs every word,
 * found nothing. They are left out of keyword queries, and the dispatcher says so (`searchOperators`).
 * `-word` stays: in a question it is as often a flag (`gcc -O2`) as an exclusion.
 */
const searchOperator = /^(site|inurl|allinurl|intitle|allintitle|intext|allintext|filetype|ext|related|cache|before|after):\S/i;

/** The web search operators in a question, as typed, in order. */
export function searchOperators(question: string): string[] {
  return question.split(/\s+/).filter((word) => searchOperator.test(word));
}

/**
 * The operators of a question that holds nothing else ("site:github.com"), else []: a keyword
 * source has no word to search for then, and searched the operator itself as text.
 */
export function onlyOperators(question: string): string[] {
  return withoutOperators(question) === "" ? searchOperators(question) : [];
}

function withoutOperators(question: string): string {
  return question
    .split(/\s+/)
    .filter((word) => word !== "" && !searchOperator.test(word))
    .join(" ");
}

/** The sources whose queries are built here; the others are sent the question as it is. */
export const KEYWORD_SOURCES: readonly ProviderName[] = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange", "pubmed"];

/** Keeps words with a digit or a symbol that means something in code (`c++`, `node.js`, `y-websocket`). */
function cleanWord(word: string): string {
  return word.replace(/^[^\p{L}\p{N}#+.@_-]+|[^\p{L}\p{N}#+_-]+$/gu, "").replace(/[.]+$/, "");
}

/** A word ending in a contraction: `doesn't`, `what's`, `I'm`, `we're`, `I've`, `you'll`, `I'd` (and a possessive). */
const CONTRACTION = /^(.+?)(n't|'s|'m|'re|'ve|'ll|'d)$/i;

/** What a negative contraction's stem stands for where it is no word of its own: can't, won't, shan't, ain't. */
const negativeStems: Record<string, string> = { ca: "can", wo: "will", sha: "shall", ai: "is" };

/**
 * A filler word written as a contraction ("doesn't", "what's", "I'm") is dropped like the filler it
 * is, and a possessive ("Automerge's") is its word: kept whole, each was a word every result had to
 * contain, and arXiv, GitHub or Hacker News found nothing. An apostrophe inside a name ("O'Reilly") stays.
 */
function withoutContraction(word: string): string {
  const match = CONTRACTION.exec(word);
  if (!match) return word;
  const stem = match[1].toLowerCase();
  const suffix = match[2].toLowerCase();
  if (suffix === "n't") return fillerWords.has(negativeStems[stem] ?? stem) ? "" : word;
  if (stem === "let" && suffix === "'s") return ""; // "let us"
  return fillerWords.has(stem) ? "" : match[1];
}

/**
 * The question's content words, in order, at most `maxWords`. Falls back to the question itself
 * (trimmed) when nothing would be left, so a query of only common words still searches.
 */
export function keywordQuery(question: string, maxWords = 8): string {
  const words = straightApostrophes(question)
    .split(/\s+/)
    .filter((word) => !searchOperator.test(word))
    .map((word) => withoutContraction(cleanWord(word)))
    .filter((word) => word !== "" && !fillerWords.has(word.toLowerCase()));
  const unique = [...new Map(words.map((w) => [w.toLowerCase(), w])).values()];
  if (unique.length === 0) return withoutOperators(question) || question.trim();
  return unique.slice(0, maxWords).join(" ");
}
