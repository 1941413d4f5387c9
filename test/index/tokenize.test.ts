// The analyser is shared by indexing and queries: whatever it makes of a note's words is what a
// query word has to become to find them.
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
