// A deterministic synthetic vault for benchmarks when ../shared/corpora is absent: notes with
// frontmatter, headings, tags, wikilinks and prose drawn from a fixed vocabulary by a seeded PRNG,
// so two machines generate byte-identical vaults.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { seededRandom } from "../src/index/vault-language/top-eigenvectors";

const WORDS = `note vault index search query link graph tag heading section project meeting idea draft
review task deadline daily weekly journal reading paper author source summary question answer
evidence claim method result data model sync device offline local remote server client protocol
document markdown editor plugin theme setting folder file path property alias embed canvas
research experiment hypothesis finding outline chapter reference citation quote highlight archive
garden habit goal plan budget travel recipe book film music course lecture language grammar code
function module test build release version change bug issue fix feature design review team`.split(/\s+/);


export function generateVault(dir: string, count: number, seed: number): void {
  const rand = seededRandom(seed);
  const pick = <T>(list: T[]) => list[Math.floor(rand() * list.length)];
  // A long-tailed vocabulary: common words plus generated rarer ones.
  const rare = Array.from({ length: 6000 }, (_, i) => `${pick(WORDS)}${i.toString(36)}`);
  const word = () => (rand() < 0.8 ? pick(WORDS) : pick(rare));
  const sentence = () => {
    const n = 6 + Math.floor(rand() * 14);
    const w = Array.from({ length: n }, word);
    w[0] = w[0][0].toUpperCase() + w[0].slice(1);
    return `${w.join(" ")}.`;
  };
  const titles = Array.from({ length: count }, (_, i) => `${pick(WORDS)} ${pick(WORDS)} ${i}`);
  for (let i = 0; i < count; i++) {
    const folder = `area-${i % 20}/topic-${i % 7}`;
    const tags = [pick(WORDS), `${pick(WORDS)}/${pick(WORDS)}`];
    const parts = [`---`, `title: ${titles[i]}`, `tags: [${tags.join(", ")}]`, `created: 2026-0${1 + (i % 9)}-1${i % 10}`, `---`, ""];
    const sections = 1 + Math.floor(rand() * 4);
    for (let s = 0; s < sections; s++) {
      parts.push(`## ${pick(WORDS)} ${pick(WORDS)}`, "");
      const paragraphs = 1 + Math.floor(rand() * 3);
      for (let p = 0; p < paragraphs; p++) {
        const body = Array.from({ length: 2 + Math.floor(rand() * 5) }, sentence).join(" ");
        parts.push(`${body} See [[${pick(titles)}]]. #${pick(WORDS)}`, "");
      }
    }
    const file = path.join(dir, folder, `note-${i}.md`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, parts.join("\n"));
  }
}
