import { describe, expect, it } from "vitest";
import { parseAtomFeed } from "../../../src/websearch/providers/atom-feed";

describe("the Atom reader", () => {
  it("finds elements whatever their prefix, reads attributes and decodes entities once", () => {
    const feed = parseAtomFeed(`<?xml version="1.0"?>
<!-- a comment with <entry> in it -->
<atom:feed xmlns:atom="http://www.w3.org/2005/Atom" xmlns:o="http://a9.com/-/spec/opensearch/1.1/">
  <o:totalResults>7</o:totalResults>
  <atom:entry>
    <atom:id>http://arxiv.org/abs/1234.5678v3</atom:id>
    <atom:title type="html">A &lt;i&gt;title&lt;/i&gt; &amp;amp; more</atom:title>
    <atom:summary>x &amp;lt; y &#x27;quoted&#x27;</atom:summary>
    <atom:author><atom:name>One Author</atom:name></atom:author>
    <atom:link href="https://arxiv.org/abs/1234.5678v3" rel='alternate'/>
    <atom:category term="math.CO"/>
  </atom:entry>
</atom:feed>`);
    expect(feed?.totalResults).toBe(7);
    expect(feed?.entries).toEqual([
      {
        id: "http://arxiv.org/abs/1234.5678v3",
        title: "A title & more",
        summary: "x &lt; y 'quoted'",
        authors: ["One Author"],
        links: [{ href: "https://arxiv.org/abs/1234.5678v3", rel: "alternate" }],
        categories: ["math.CO"],
        arxiv: {},
      },
    ]);
  });

  it("is not fooled by a body that is not a feed", () => {
    expect(parseAtomFeed("<html><body><entry>no</entry></body></html>")).toBeUndefined();
    expect(parseAtomFeed("Rate exceeded.")).toBeUndefined();
    expect(parseAtomFeed("")).toBeUndefined();
  });

  it("reads a feed with no entries, and an entry missing its optional parts", () => {
    expect(parseAtomFeed('<feed xmlns="http://www.w3.org/2005/Atom"/>')).toEqual({ entries: [], complete: true });
    const [entry] = parseAtomFeed("<feed><entry><id>x</id></entry></feed>")!.entries;
    expect(entry).toEqual({ id: "x", title: "", summary: "", authors: [], links: [], categories: [], arxiv: {} });
  });

  it("tells a feed cut off on its way from one that ends: only the entries before the cut are read", () => {
    const cut = parseAtomFeed("<feed><entry><id>a</id><title>A</title></entry><entry><id>b</id><title>B");
    expect(cut?.complete).toBe(false);
    expect(cut?.entries.map((e) => e.id)).toEqual(["a"]);
    expect(parseAtomFeed("<atom:feed><entry><id>a</id></entry></atom:feed>\n<!-- served by x -->")?.complete).toBe(true);
  });
});

// Each hostile body is big enough that the old lazy patterns, which looked for a closer again from
// every unclosed opener, ran for minutes — synchronously, so no source deadline could stop them.
describe("the Atom reader on a broken or hostile body", () => {
  const repeats = 500_000;
  const kept = "<feed><entry><id>kept</id></entry>";
  const ids = (xml: string) => parseAtomFeed(xml)?.entries.map((e) => e.id);

  it("keeps the entries before a run of <entry> tags that are never closed", () => {
    expect(ids(kept + "<entry>".repeat(repeats))).toEqual(["kept"]);
  });

  it("still finds self-closing elements after an element that is never closed", () => {
    const [entry] = parseAtomFeed('<feed><entry><id>x</id><link href="a"><link href="b"/></entry></feed>')!.entries;
    expect(entry.links).toEqual([{ href: "b" }]);
  });

  it("drops everything after a comment that is never closed", () => {
    expect(ids(kept + "<!--".repeat(repeats) + "<entry><id>hidden</id></entry></feed>")).toEqual(["kept"]);
  });

  it("drops everything after a processing instruction that is never closed", () => {
    expect(ids(kept + "<?".repeat(repeats) + "<entry><id>hidden</id></entry></feed>")).toEqual(["kept"]);
  });

  it("reads a CDATA section that is never closed as text to the end of its element", () => {
    const [entry] = parseAtomFeed(`<feed><entry><id>x</id><summary>${"<![CDATA[a".repeat(repeats)}</summary></entry></feed>`)!.entries;
    expect(entry.summary).toBe(`a${"<![CDATA[a".repeat(repeats - 1)}`);
  });

  it("reads a `<!--` inside CDATA as text, so it does not hide the entries after it", () => {
    expect(ids("<feed><entry><id>one</id><summary><![CDATA[x <!-- y]]></summary></entry><entry><id>two</id></entry></feed>")).toEqual(["one", "two"]);
  });

  it("reads the attributes of a tag with a long run of name characters and no value", () => {
    const [entry] = parseAtomFeed(`<feed><entry><id>x</id><link href="https://arxiv.org/abs/x" ${"a".repeat(repeats)}/></entry></feed>`)!.entries;
    expect(entry.links).toEqual([{ href: "https://arxiv.org/abs/x" }]);
  });
});
