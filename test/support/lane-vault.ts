// A vault big enough to learn its language from (520 notes, about 2,300 passages), with one word
// its notes never write beside its stand-in: four topics of made-up words, and in each a pair
// ("pelican" in 4 notes, "kestrel" in the rest) that never share a note. Searching "pelican" then
// finds "kestrel" notes only by meaning. For the CLI's lane test, the workbench (`vault=large`) and
// the worker tests (the meanings learned on this thread, and the notes as a worker is handed them).
import { isTopicTerm } from "../../src/index/stopwords";
import { createAnalyzer } from "../../src/index/tokenize";
import { notesBatch, NOTES_END } from "../../src/index/vault-language/meanings-job";
import { PassageSampler } from "../../src/index/vault-language/passage-sample";
import { seededRandom } from "../../src/index/vault-language/top-eigenvectors";
import { learnWordMeanings, type WordMeaningOptions, type WordMeanings } from "../../src/index/vault-language/word-meanings";
import { NO_SLICES } from "../../src/index/work-slice";

/** A made-up word, different for every number: "bakodu", "bakofe", … */
function syllableWord(n: number): string {
  const syllables = ["ba", "ko", "du", "fe", "mi", "lo", "ra", "si", "tu", "ve", "no", "pi"];
  let word = "";
  for (let i = 0, x = n + 200; i < 3; i++, x = Math.floor(x / syllables.length)) word += syllables[x % syllables.length];
  return word;
}

/** Path → text of the 520 notes (folders t0 … t3, one a topic). */
export function laneVault(): Record<string, string> {
  const random = seededRandom(11);
  const topics = [0, 1, 2, 3].map((t) => ({
    pair: [["pelican", "kestrel"], ["quartz", "feldspar"], ["violin", "cello"], ["barley", "sorghum"]][t],
    context: Array.from({ length: 90 }, (_, i) => syllableWord(t * 90 + i)),
  }));
  const notes: Record<string, string> = {};
  for (let n = 0; n < 520; n++) {
    const topic = topics[n % 4];
    // The question's word is rare (a few notes of its topic); its stand-in is in the topic's others.
    const word = topic.pair[n < 16 ? 0 : 1];
    const words: string[] = [];
    for (let i = 0; i < 130; i++) words.push(i % 9 === 0 ? word : topic.context[Math.floor(random() * topic.context.length)]);
    notes[`t${n % 4}/note ${n}.md`] = `# Note ${n}\n\n${words.join(" ")}\n`;
  }
  return notes;
}

/** The notes of `laneVault`, in path order (as the lane reads them again). */
export function laneVaultNotes(): [string, string][] {
  return Object.entries(laneVault()).sort(([a], [b]) => (a < b ? -1 : 1));
}

/** The meanings learned from `notes` on this thread, as the lane learns them without a worker. */
export async function meaningsLearnedHere(notes: [string, string][], options: WordMeaningOptions, maxPassages = 60_000): Promise<WordMeanings | null> {
  const sampler = new PassageSampler(maxPassages, createAnalyzer({ stemming: true }));
  for (const [path, text] of notes) sampler.offer(path, text);
  return learnWordMeanings(sampler.items(), isTopicTerm, NO_SLICES, options);
}

/** `notes` as a worker learning meanings is handed them: `size` a batch, then the end. */
export async function* notesAsHanded(notes: [string, string][], size = 64): AsyncGenerator<unknown> {
  for (let at = 0; at < notes.length; at += size) yield notesBatch(notes.slice(at, at + size));
  yield NOTES_END;
}
