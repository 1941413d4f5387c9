// What the user typed, read into words, "phrases" and #tags.
import { describe, expect, it } from "vitest";
import { parseQuery } from "../../src/index/query";

describe("parseQuery", () => {
  it("keeps a quoted phrase whole and also searches its words", () => {
    const q = parseQuery('"Exact Phrase" tar');
    expect(q.phrases).toEqual(["exact phrase"]);
    expect(q.words).toEqual(["exact", "phrase", "tar"]);
  });

  it("reads several phrases and ignores empty quotes", () => {
    const q = parseQuery('"one two" "" "three four"');
    expect(q.phrases).toEqual(["one two", "three four"]);
  });

  it("takes #tags out of the words, lower-cased, nested ones whole", () => {
    const q = parseQuery("#Project/Alpha meeting #todo");
    expect(q.tags).toEqual(["project/alpha", "todo"]);
    expect(q.words).toEqual(["meeting"]);
  });

  it("lists the words written in lowerCamelCase, folded, each once (a setting's name names a note alone)", () => {
    expect(parseQuery('set siteUrl and "assetsPrefix", then siteUrl again; not iPhone, GitHub or siteurl').identifiers).toEqual(["siteurl", "assetsprefix"]);
    expect(parseQuery("plain words only").identifiers).toEqual([]);
  });

  it("searches a possessive as its word ('mac's display' for mac), keeping it whole in the sequence names are read in", () => {
    const q = parseQuery("stop my Mac's display; Kevin Kelly’s book; it's");
    expect(q.words).toEqual(["stop", "mac", "display", "kevin", "kelly", "book"]);
    expect(q.sequence).toContain("mac's");
    expect(parseQuery("it's").words).toEqual(["it's"]);
  });

  it("reads curly quotes and apostrophes as straight ones (a phone types them)", () => {
    const q = parseQuery("where did I write “ship it” or „los geht’s“? it’s O’Reilly");
    expect(q.phrases).toEqual(["ship it", "los geht's"]);
    expect(q.stopWords).toContain("it's");
    expect(q.words).toContain("o'reilly");
  });

  it("trims trailing slashes from tags and lists each tag once", () => {
    expect(parseQuery("#a/b/ #a/b").tags).toEqual(["a/b"]);
  });

  it("spells a tag as notes' tags are kept: no empty levels", () => {
    expect(parseQuery("#Project//Alpha #project/alpha//").tags).toEqual(["project/alpha"]);
  });

  it("reads a tag with its marks, as the plan does: #पनीर is no #पन and a word र", () => {
    const q = parseQuery("#पनीर recipes");
    expect(q.tags).toEqual(["पनीर"]);
    expect(q.words).toEqual(["recipes"]);
    expect(parseQuery("issue #123").tags).toEqual([]);
  });

  it("does not read a # inside a word or a number as a tag", () => {
    const q = parseQuery("issue#12 C# #42");
    expect(q.tags).toEqual([]);
  });

  it("drops stop words and remembers them", () => {
    const q = parseQuery("how do I use tar");
    expect(q.words).toEqual(["tar"]);
    expect(q.stopWords).toEqual(["how", "do", "i", "use"]);
  });

  it("keeps every word in order, stop words and quoted words included, tags not", () => {
    const q = parseQuery('who wrote "Out of Control" #books');
    expect(q.sequence).toEqual(["who", "wrote", "out", "of", "control"]);
    expect(q.words).toEqual(["wrote", "control"]);
  });

  it("keeps stop words when nothing else is left", () => {
    const q = parseQuery("The Who");
    expect(q.words).toEqual(["the", "who"]);
    expect(q.stopWords).toEqual([]);
  });

  it("folds accents in words and phrases", () => {
    const q = parseQuery('"Café Crème" naïve');
    expect(q.phrases).toEqual(["cafe creme"]);
    expect(q.words).toEqual(["cafe", "creme", "naive"]);
  });
});
