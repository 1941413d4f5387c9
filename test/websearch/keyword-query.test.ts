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
