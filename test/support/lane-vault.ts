// A vault big enough to learn its language from (520 notes, about 2,300 passages), with one word
// its notes never write beside its stand-in: four topics of made-up words, and in each a pair
// ("pelican" in 4 notes, "kestrel" in the rest) that never share a note. Searching "pelican" then
// finds "kestrel" notes only by meaning. For the CLI's lane test and the workbench (`vault=large`).
import { seededRandom } from "../../src/index/vault-language/top-eigenvectors";

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
