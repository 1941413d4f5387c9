// The analyser is shared by indexing and queries: whatever it makes of a note's words is what a
// query word has to become to find them.
import { memoryUsage } from "node:process";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { camelPieces, createAnalyzer, foldCase, wordSpans } from "../../src/index/tokenize";

const stemmed = createAnalyzer({ stemming: true });
const plain = createAnalyzer({ stemming: false });

describe("analyser", () => {
  it("folds accents and case, so café and CAFE are one term", () => {
    expect(plain.analyzeWord("café")).toEqual(["cafe"]);
    expect(plain.analyzeWord("CAFE")).toEqual(["cafe"]);
    expect(plain.terms("Crème brûlée at the Café")).toEqual(["creme", "brulee", "at", "the", "cafe"]);
    expect(foldCase("Ångström")).toBe("angstrom");
  });

  it("turns Chinese text into overlapping bigrams a two-character query can hit", () => {
    const terms = plain.terms("我们使用中文搜索引擎");
    expect(terms).toEqual(["我们", "们使", "使用", "用中", "中文", "文搜", "搜索", "索引", "引擎"]);
    expect(terms).toContain(plain.analyzeWord("搜索")[0]);
  });

  it("turns Japanese text into bigrams across kana and kanji, and keeps Latin words beside it", () => {
    expect(plain.terms("日本語の文章")).toEqual(["日本", "本語", "語の", "の文", "文章"]);
    expect(plain.terms("Obsidianで東京")).toEqual(["obsidian", "で東", "東京"]);
  });

  it("indexes a Chinese sentence of any length, so a word inside a long one is found", () => {
    // 62 characters with no punctuation: over the 40 a Latin word may have, and once dropped whole.
    const sentence = "我们今天讨论了如何在个人知识管理系统中使用全文搜索引擎来快速找到以前写过的笔记和想法这样就不用每次都重新思考同样的问题了";
    const terms = plain.terms(`${sentence}。`);
    expect(terms).toHaveLength(Array.from(sentence).length - 1);
    for (const query of plain.terms("搜索引擎")) expect(terms).toContain(query);
    // A note of one run of 200,000 characters (no punctuation) is indexed too.
    expect(plain.terms("中文".repeat(100_000))).toHaveLength(199_999);
  });

  it("reads a Latin word at a CJK run's edge without the - or _ that joined them", () => {
    expect(plain.terms("東京_2024")).toEqual(["東京", "2024"]);
    expect(plain.terms("中文-search")).toEqual(["中文", "search"]);
    expect(plain.terms("中文-search")).toContain(plain.analyzeWord("search")[0]);
  });

  it("reads full-width Latin letters and digits as the ASCII a query types", () => {
    expect(stemmed.terms("ｆｉｌｅｓ")).toEqual(stemmed.terms("files"));
    expect(plain.terms("ＰＤＦファイル")).toContain(plain.analyzeWord("PDF")[0]);
    expect(plain.terms("Ｖｅｒｓｉｏｎ　１２３")).toEqual(["version", "123"]);
    expect(foldCase("ＰＤＦ（１）")).toBe("pdf(1)");
  });

  it("indexes a single CJK character as itself", () => {
    expect(plain.analyzeWord("字")).toEqual(["字"]);
  });

  it("splits camelCase and PascalCase into parts and keeps the whole word", () => {
    expect(plain.analyzeWord("MiniSearch")).toEqual(["minisearch", "mini", "search"]);
    expect(plain.analyzeWord("HTTPServer")).toEqual(["httpserver", "http", "server"]);
  });

  it("splits kebab-case and snake_case into parts and adds the joined form", () => {
    expect(plain.analyzeWord("e-mail")).toEqual(["e", "mail", "email"]);
    expect(plain.analyzeWord("snake_case_name")).toEqual(["snake", "case", "name", "snakecasename"]);
    expect(plain.terms("local-first")).toContain("localfirst");
  });

  it("does not glue words joined by more than one apostrophe into one term", () => {
    expect(plain.analyzeWord("rock'n'roll")).toEqual(["rock", "n", "roll"]);
  });

  it("stems English words only when stemming is on", () => {
    expect(stemmed.analyzeWord("running")).toEqual(["run"]);
    expect(plain.analyzeWord("running")).toEqual(["running"]);
    expect(stemmed.terms("indexing queries")).toEqual(["index", "queri"]);
    expect(stemmed.normalizeTerm("Configuring")).toBe(stemmed.normalizeTerm("configure"));
    expect(plain.normalizeTerm("Configuring")).not.toBe(plain.normalizeTerm("configure"));
  });

  it("drops words longer than 40 characters (hashes, base64) and keeps 40", () => {
    const hash = "a".repeat(41);
    expect(plain.analyzeWord(hash)).toEqual([]);
    expect(plain.terms(`before ${hash} after`)).toEqual(["before", "after"]);
    expect(plain.analyzeWord("b".repeat(40))).toEqual(["b".repeat(40)]);
  });

  it("gives the same answer for a word the second time (memoised, not mutated)", () => {
    const first = [...stemmed.analyzeWord("MiniSearch")];
    expect(stemmed.analyzeWord("MiniSearch")).toEqual(first);
  });

  it("keeps no note's text alive through the words it remembers", () => {
    // A word cut from a text can share the text's memory; remembered as it was cut, each note's one
    // long word of its own kept the whole note (and the index holding its terms kept it too).
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const analyzer = createAnalyzer({ stemming: true });
    const kept: string[] = [];
    const heapUsed = () => {
      gc();
      return memoryUsage().heapUsed;
    };
    const before = heapUsed();
    for (let i = 0; i < 25; i++) {
      // A megabyte of prose, then a word no other note has.
      const text = `${"lorem ipsum dolor sit amet ".repeat(40_000)}marmaladeconfiture${i}x`;
      kept.push(...analyzer.terms(text).slice(-1));
    }
    const held = heapUsed() - before;
    expect(kept).toHaveLength(25);
    // 25 MB of notes went through; what stays is the memo and the terms, a few kilobytes.
    expect(held).toBeLessThan(8_000_000);
  });

  it("reports word offsets that slice back to the words", () => {
    const text = "Hello, wörld — e-mail!";
    const spans = wordSpans(text);
    expect(spans.map((s) => s.word)).toEqual(["Hello", "wörld", "e-mail"]);
    for (const s of spans) expect(text.slice(s.start, s.end)).toBe(s.word);
  });
});

describe("camelPieces", () => {
  it.each([
    ["MiniSearch", ["Mini", "Search"]],
    ["HTTPServer", ["HTTP", "Server"]],
    ["getX2Y", ["get", "X2", "Y"]],
    ["parseHTMLString", ["parse", "HTML", "String"]],
    ["iPhone", ["i", "Phone"]],
    ["lower", ["lower"]],
    ["ALLCAPS", ["ALLCAPS"]],
  ])("splits %s into %j", (word, pieces) => {
    expect(camelPieces(word)).toEqual(pieces);
  });
});
