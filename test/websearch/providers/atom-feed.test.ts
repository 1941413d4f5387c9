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
    expect(parseAtomFeed('<feed xmlns="http://www.w3.org/2005/Atom"/>')).toEqual({ entries: [] });
    const [entry] = parseAtomFeed("<feed><entry><id>x</id></entry></feed>")!.entries;
    expect(entry).toEqual({ id: "x", title: "", summary: "", authors: [], links: [], categories: [], arxiv: {} });
  });
});
