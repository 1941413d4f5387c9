// The "exact phrase" check: a ranked candidate stays only when its text holds every quoted phrase,
// as whole words in order, across case, accents and punctuation.
import { describe, expect, it } from "vitest";
import { foldForPhrase, keepPhraseMatches, phraseCandidateCount } from "../../src/index/phrase-filter";
import type { RankedHit } from "../../src/index/ranking/explain";
import { MemoryNoteStore } from "../support/memory-note-store";

class ReadCountingStore extends MemoryNoteStore {
  readonly reads: string[] = [];

  override async read(p: string): Promise<string> {
    this.reads.push(p);
    return "";
  }
}

function hit(path: string): RankedHit {
  const explanation = { matchedTerms: [], missingTerms: [], fields: {}, parts: [], termWeights: {}, termNotes: {} };
  return { path, score: 1, docTerms: new Map(), explanation };
}

describe("foldForPhrase", () => {
  it("reduces punctuation and spacing to single spaces between folded words", () => {
    expect(foldForPhrase("Hello,   Wörld!\n(again)")).toBe(" hello world again ");
  });

  it("makes each character of a Chinese or Japanese run a word of its own", () => {
    expect(foldForPhrase("我们使用中文")).toBe(" 我 们 使 用 中 文 ");
  });
});

describe("keepPhraseMatches", () => {
  const store = new MemoryNoteStore({
    "fox.md": "The quick brown fox.",
    "shuffled.md": "The brown dog and the quick fox.",
    "both.md": "A quick brown fox, and a lazy dog.",
  });

  it("keeps candidates holding every phrase, in ranked order, and says so in the explanation", async () => {
    const kept = await keepPhraseMatches([hit("shuffled.md"), hit("both.md"), hit("fox.md")], ["quick brown"], store, 10);
    expect(kept.map((h) => h.path)).toEqual(["both.md", "fox.md"]);
    expect(kept[0].explanation.parts).toEqual([{ name: "phrase", detail: 'contains "quick brown"', weight: 0 }]);
    expect((await keepPhraseMatches([hit("fox.md"), hit("both.md")], ["quick brown", "lazy dog"], store, 10)).map((h) => h.path)).toEqual(["both.md"]);
  });

  it("matches whole words only, and skips notes that cannot be read", async () => {
    expect(await keepPhraseMatches([hit("fox.md")], ["quick bro"], store, 10)).toEqual([]);
    expect(await keepPhraseMatches([hit("gone.md"), hit("fox.md")], ["brown fox"], store, 10)).toHaveLength(1);
  });

  it("finds a phrase in a note's names too, never across a name and its text", async () => {
    const names = (path: string) => (path === "fox.md" ? ["Out of Control", "ooc"] : []);
    expect((await keepPhraseMatches([hit("fox.md"), hit("both.md")], ["out of control"], store, 10, names)).map((h) => h.path)).toEqual(["fox.md"]);
    expect(await keepPhraseMatches([hit("fox.md")], ["out of control"], store, 10)).toEqual([]);
    expect(await keepPhraseMatches([hit("fox.md")], ["ooc the quick"], store, 10, names)).toEqual([]);
  });

  it("checks no phrase of no words ('—'), and says no note contains it", async () => {
    const names = (path: string) => [path.replace(/\.md$/, "")];
    const kept = await keepPhraseMatches([hit("shuffled.md"), hit("fox.md")], ["—"], store, 10, names);
    expect(kept.map((h) => h.path)).toEqual(["shuffled.md", "fox.md"]);
    expect(kept.flatMap((h) => h.explanation.parts)).toEqual([]);
    const withWords = await keepPhraseMatches([hit("shuffled.md"), hit("fox.md")], ["—", "quick brown"], store, 10, names);
    expect(withWords.map((h) => [h.path, h.explanation.parts])).toEqual([["fox.md", [{ name: "phrase", detail: 'contains "quick brown"', weight: 0 }]]]);
  });

  it("stops at the limit and reads no more candidates than it asks ranking for", async () => {
    expect(await keepPhraseMatches([hit("fox.md"), hit("both.md")], ["quick brown"], store, 1)).toHaveLength(1);
    const many = Array.from({ length: 300 }, (_, i) => hit(`n${i}.md`));
    const counting = new ReadCountingStore();
    await keepPhraseMatches(many, ["x"], counting, 5);
    expect(counting.reads).toHaveLength(phraseCandidateCount(5));
    expect(phraseCandidateCount(5)).toBe(100);
    expect(phraseCandidateCount(20)).toBe(200);
  });
});
