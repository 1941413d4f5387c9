// Keyword sources (Wikipedia, Hacker News, arXiv, GitHub, Stack Exchange, PubMed) match every word
// they are given, so "How do I configure y-websocket authentication?" finds nothing where
// "configure y-websocket authentication" finds the page. The question's filler words are dropped
// here; the words kept are still the user's own, in their order — never note text.
import { wordSet } from "../text/word-set";

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

/** Keeps words with a digit or a symbol that means something in code (`c++`, `node.js`, `y-websocket`). */
function cleanWord(word: string): string {
  return word.replace(/^[^\p{L}\p{N}#+.@_-]+|[^\p{L}\p{N}#+_-]+$/gu, "").replace(/[.]+$/, "");
}

/**
 * The question's content words, in order, at most `maxWords`. Falls back to the question itself
 * (trimmed) when nothing would be left, so a query of only common words still searches.
 */
export function keywordQuery(question: string, maxWords = 8): string {
  const words = question
    .split(/\s+/)
    .map(cleanWord)
    .filter((word) => word !== "" && !fillerWords.has(word.toLowerCase()));
  const unique = [...new Map(words.map((w) => [w.toLowerCase(), w])).values()];
  if (unique.length === 0) return question.trim();
  return unique.slice(0, maxWords).join(" ");
}
