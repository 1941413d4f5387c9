import { describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/index/tokenize";
import { planQuestion } from "../../../src/research/stages/plan";
import { choosePassages, fuseBySimilarity, MAX_HEADING_CHARS, PASSAGE_WORDS, rankPassages, selectPassages, splitPassages, type ScoredPassage } from "../../../src/research/stages/page-passages";
import { countWords } from "../../../src/text/word-count";

const words = (n: number, word = "filler") => Array.from({ length: n }, (_, i) => `${word}${i % 7}`).join(" ");
const analyzer = createAnalyzer({ stemming: true });

const PAGE = [
  "# Compaction",
  "",
  `${words(60)}.`,
  "",
  `${words(50)}.`,
  "",
  "## Tombstones and deleted text",
  "",
  "Quillsync keeps each tombstone for 14 days. After that, the compactor removes it on the next idle sync.",
  "",
  "### Offline devices",
  "",
  `A device offline for longer reloads the document. ${words(40)}.`,
  "",
  "## Tuning",
  "",
  "```",
  "# not a heading inside code",
  "compaction.tombstoneDays = 14",
  "```",
  "",
  `Set compaction.tombstoneDays to change it. ${words(30)}.`,
].join("\n");

describe("splitPassages", () => {
  const passages = splitPassages(PAGE);

  it("cuts at headings and names each passage by its heading path", () => {
    expect(passages.map((p) => p.heading_path)).toEqual([
      ["Compaction"],
      ["Compaction", "Tombstones and deleted text"],
      ["Compaction", "Tombstones and deleted text", "Offline devices"],
      ["Compaction", "Tuning"],
    ]);
  });

  // The heading path rides with every passage under it, outside the budget its text is held to: one
  // 210,000-character heading went into the prompt, the trace note and --json beside each kept passage.
  it("keeps a short start of an overlong heading in the path, and the passages' offsets exact", () => {
    const page = `## ${"tombstone compaction ".repeat(10_000)}

${"Quillsync keeps tombstones for thirty days. ".repeat(30)}`;
    const [passage] = splitPassages(page);
    expect(passage.heading_path).toHaveLength(1);
    expect(passage.heading_path[0].length).toBeLessThanOrEqual(MAX_HEADING_CHARS);
    expect(passage.heading_path[0]).toMatch(/^tombstone compaction tombstone .*…$/);
    expect(page.slice(passage.start, passage.end)).toBe(passage.text);
  });

  it("gives offsets that slice the page text exactly, in page order", () => {
    for (const p of passages) expect(PAGE.slice(p.start, p.end)).toBe(p.text);
    expect(passages.map((p) => p.index)).toEqual([0, 1, 2, 3]);
    for (let i = 1; i < passages.length; i++) expect(passages[i].start).toBeGreaterThan(passages[i - 1].end);
  });

  it("joins paragraphs until a passage has about 100 words, and keeps fenced code whole", () => {
    expect(passages[0].words).toBeGreaterThanOrEqual(PASSAGE_WORDS.min);
    expect(passages[0].text).toContain("\n\n");
    expect(passages[3].text).toContain("# not a heading inside code");
  });

  it("keeps a code block whole that shows other fences: a ~~~ or a shorter run inside it is code, and so is a # line", () => {
    for (const [open, inner, close] of [["```markdown", "~~~", "```"], ["````", "```", "````"]]) {
      const code = [open, inner, "# Not a heading", "", "still code", inner, close].join("\n");
      const page = `Intro words here.\n\n${code}\n\nAfter the code.`;
      const passages = splitPassages(page);
      expect(passages.every((p) => p.heading_path.length === 0)).toBe(true);
      expect(passages.map((p) => p.text).join("\n\n")).toBe(page);
    }
  });

  it("a line that only looks like a fence (a backtick in its info, a tab before it) opens no code", () => {
    for (const line of ["```a`b` said", "\t```"]) {
      const passages = splitPassages(`${line}\n\n# Setup\n\nInstall it first.`);
      expect(passages.at(-1)).toMatchObject({ text: "Install it first.", heading_path: ["Setup"] });
    }
  });

  it("never makes a passage over 300 words: a long paragraph is split between sentences", () => {
    const sentence = `${words(49)} end.`;
    const long = Array.from({ length: 14 }, () => sentence).join(" ");
    const pieces = splitPassages(`# Long\n\n${long}`);
    expect(pieces.length).toBeGreaterThan(2);
    for (const p of pieces) {
      expect(p.words).toBeLessThanOrEqual(PASSAGE_WORDS.max);
      expect(countWords(p.text)).toBe(p.words);
      expect(p.text.endsWith("end.")).toBe(true);
    }
  });

  it("splits a wall of words without sentence ends between words", () => {
    const pieces = splitPassages(words(700));
    expect(pieces.map((p) => p.words)).toEqual([300, 300, 100]);
  });

  it("reads headings as CommonMark does: closing hashes go after a space, a hash in the text stays", () => {
    const pieces = splitPassages("## Tools ##\n\nFirst part words here.\n\n### C#\n\nSecond part words here.\n");
    expect(pieces.map((p) => p.heading_path)).toEqual([["Tools"], ["Tools", "C#"]]);
  });

  // The heading pattern that trimmed its own closing hashes backtracked over a run of spaces: 4,000
  // of them took 25 s, and a page's em spaces (Defuddle keeps them) are such a run. 40,000 here
  // would take hours that way; read in code, they are a heading like any other.
  it("reads a heading with a long run of spaces inside it as a heading", () => {
    const heading = `## a${"\u2003".repeat(40_000)}x`;
    const pieces = splitPassages(`${heading}\n\nThe words under it.\n`);
    expect(pieces).toHaveLength(1);
    expect(pieces[0].heading_path).toEqual(["a…"]);
  });

  it("gives nothing for an empty page", () => {
    expect(splitPassages("")).toEqual([]);
    expect(splitPassages("\n\n# Only a heading\n")).toEqual([]);
  });
});

describe("rankPassages", () => {
  it("puts the passage that answers the question first, by the index's analyser (tombstones → tombstone)", () => {
    const plan = planQuestion("How long does Quillsync keep tombstones before compacting them?");
    const ranked = rankPassages(splitPassages(PAGE), plan, analyzer);
    const best = [...ranked].sort((a, b) => b.score - a.score)[0];
    expect(best.text).toContain("keeps each tombstone for 14 days");
  });

  it("scores a passage that shares no word with the question 0", () => {
    const plan = planQuestion("How long does Quillsync keep tombstones?");
    expect(rankPassages(splitPassages(words(120)), plan, analyzer).map((p) => p.score)).toEqual([0]);
  });

  it("counts a quoted phrase of the question as a bonus", () => {
    const passages = splitPassages("# A\n\nThe idle sync runs later.\n\n# B\n\nSync when idle, runs later.");
    const plan = planQuestion('"idle sync" runs');
    const [a, b] = rankPassages(passages, plan, analyzer);
    expect(a.score).toBeGreaterThan(b.score);
  });
});

describe("selectPassages and choosePassages", () => {
  const plan = planQuestion("How long does Quillsync keep tombstones, and how do I change compaction.tombstoneDays?");

  it("keeps the best passages that fit the budget, shown in page order", () => {
    const ranked = rankPassages(splitPassages(PAGE), plan, analyzer);
    const [first, second] = [...ranked].sort((a, b) => b.score - a.score);
    const chosen = choosePassages(PAGE, plan, first.text.length + second.text.length, { stemming: true });
    expect(chosen.found).toBe(4);
    expect(chosen.kept.map((p) => p.index)).toEqual([first.index, second.index].sort());
    expect(chosen.kept.map((p) => p.heading_path.at(-1))).toEqual(["Tombstones and deleted text", "Tuning"]);
  });

  it("keeps nothing of a page that does not match the question", () => {
    expect(choosePassages(words(400), plan, 10_000, { stemming: true }).kept).toEqual([]);
  });

  it("never goes over the budget", () => {
    for (const budget of [0, 150, 250, 400, 900, 2000]) {
      const kept = choosePassages(PAGE, plan, budget, { stemming: true }).kept;
      expect(kept.reduce((n, p) => n + p.text.length, 0), `budget ${budget}`).toBeLessThanOrEqual(budget);
    }
  });

  it("cuts the best passage to fit a small budget rather than keep nothing, and says so", () => {
    const ranked = rankPassages(splitPassages(PAGE), plan, analyzer);
    const best = [...ranked].sort((a, b) => b.score - a.score)[0];
    const [cut] = selectPassages(ranked, Math.floor(best.text.length / 2) + 120);
    expect(cut.cut).toBe(true);
    expect(cut.text.endsWith("…")).toBe(true);
    expect(PAGE.slice(cut.start, cut.end)).toBe(cut.text.slice(0, -1));
  });
});

describe("fuseBySimilarity", () => {
  const passage = (index: number, score: number): ScoredPassage => ({ text: `passage ${index}`, start: index * 20, end: index * 20 + 9, heading_path: [], words: 2, index, score });

  it("keeps a passage that answers in other words: the meaning's lane brings it in beside the words' matches", () => {
    const ranked = [passage(0, 2), passage(1, 0), passage(2, 1), passage(3, 0), passage(4, 0)];
    const fused = fuseBySimilarity(ranked, [0.1, 0.9, 0.2, 0.05, 0.0]);
    const kept = selectPassages(fused, 1000).map((p) => p.index);
    expect(kept).toContain(1);
    // Both lanes rank passage 0 high; passage 1 is only the meaning's best.
    expect(fused[0].score).toBeGreaterThan(fused[1].score);
  });

  it("lets the meaning's lane add at most max(3, the words' matches): a page's every passage cannot come in", () => {
    const ranked = Array.from({ length: 10 }, (_, i) => passage(i, i === 0 ? 1 : 0));
    const fused = fuseBySimilarity(ranked, ranked.map((_, i) => 1 - i / 10));
    expect(fused.filter((p) => p.score > 0).map((p) => p.index)).toEqual([0, 1, 2]);
  });

  it("ignores passages that were not embedded (NaN)", () => {
    const ranked = [passage(0, 0), passage(1, 0), passage(2, 0), passage(3, 0)];
    const fused = fuseBySimilarity(ranked, [Number.NaN, 0.4, Number.NaN, 0.2]);
    expect(fused.map((p) => p.score > 0)).toEqual([false, true, false, true]);
  });
});
