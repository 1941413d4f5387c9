import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { keywordQuery, searchOperators } from "../../src/websearch/keyword-query";
import { userAgent } from "../../src/websearch/provider-http";
import { repoRoot } from "./helpers";

describe("keyword queries for the sources that match every word", () => {
  it("drops the question's filler words and keeps its own words, in order", () => {
    expect(keywordQuery("How do I configure y-websocket authentication with JWT tokens?")).toBe("configure y-websocket authentication JWT tokens");
    expect(keywordQuery("What is a CRDT?")).toBe("CRDT");
    expect(keywordQuery("Is node.js faster than C++ for this?")).toBe("node.js faster than C++");
  });

  it("keeps at most the number of words asked for, each once", () => {
    expect(keywordQuery("crdt crdt automerge yjs peritext rga logoot treedoc woot lseq", 4)).toBe("crdt automerge yjs peritext");
  });

  it("leaves out the web search operators a keyword source would search as text, and names them", () => {
    const question = "site:github.com automerge sync filetype:pdf -yjs";
    expect(keywordQuery(question)).toBe("automerge sync -yjs");
    expect(searchOperators(question)).toEqual(["site:github.com", "filetype:pdf"]);
    expect(keywordQuery("What is site:github.com?")).toBe("What is");
    expect(keywordQuery("What does gcc -O2 do?")).toBe("gcc -O2");
  });

  it("drops filler words written as contractions and reads a possessive as its word, whichever apostrophe is typed", () => {
    // Each source needs every word: arXiv was asked for all:"doesn't", GitHub for a repository named so.
    expect(keywordQuery("Why doesn't Yjs garbage-collect deleted items?")).toBe("Yjs garbage-collect deleted items");
    expect(keywordQuery("What's new in Node 22?")).toBe("Node 22");
    expect(keywordQuery("Why isn’t my CRDT converging? I'm lost, it's weird and I can't tell")).toBe("CRDT converging lost weird");
    expect(keywordQuery("How's Automerge's performance vs Yjs? Let's see")).toBe("Automerge performance vs Yjs see");
    // An apostrophe inside a name is no contraction, and a curly one is read as straight.
    expect(keywordQuery("books by O’Reilly on the users' guide")).toBe("books O'Reilly users guide");
  });

  it("falls back to the question when only filler words are left", () => {
    expect(keywordQuery("  what is it?  ")).toBe("what is it?");
  });
});

describe("who is asking", () => {
  it("the User-Agent names the plugin at the version package.json says, with a way to reach its authors", () => {
    const { version } = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
    expect(userAgent.startsWith(`VaultResearch/${version} (`)).toBe(true);
    expect(userAgent).toMatch(/https:\/\/\S+\)$/);
  });
});
