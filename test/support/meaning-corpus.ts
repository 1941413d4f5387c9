// Passages to learn word meanings from, small enough for a unit test (word-meanings.test.ts,
// meanings-job.test.ts, the real workers' tests).
import { seededRandom } from "../../src/index/vault-language/top-eigenvectors";

/** Six topics of eight context words each: "t0w0" … "t5w7". */
const TOPICS = Array.from({ length: 6 }, (_, t) => Array.from({ length: 8 }, (_, w) => `t${t}w${w}`));

/**
 * 600 passages. Topic 0's hold "alpha" (10) or "beta" (90), never both; topic 1's hold "gamma",
 * the other topics' their own head word; each passage has four of its topic's context words, and
 * every one has "the" and "2024" (a stop word and a number).
 */
export function meaningCorpus(): string[][] {
  const random = seededRandom(9);
  const passages: string[][] = [];
  for (let i = 0; i < 600; i++) {
    const topic = i % TOPICS.length;
    const head = topic === 0 ? (i % 60 === 0 ? "alpha" : "beta") : topic === 1 ? "gamma" : `head${topic}`;
    const context = [...TOPICS[topic]].sort(() => random() - 0.5).slice(0, 4);
    passages.push([head, ...context, "the", "2024"]);
  }
  // A word in two passages only: chance company.
  passages[1].push("rarely");
  passages[7].push("rarely");
  return passages;
}

