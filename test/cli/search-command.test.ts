// What `vault-research search` prints for a person: the "why" line names the vault-language lane
// when it found the note, and the score shown is the one the order follows.
import { describe, expect, it } from "vitest";
import { dialResultText, searchResultText } from "../../src/cli/search-command";
import { renderStyled } from "../../src/cli/terminal-style";
import type { SearchResult } from "../../src/index/types";

const plainText = (parts: Parameters<typeof renderStyled>[0]) => renderStyled(parts, false);

function result(explanation: Partial<SearchResult["explanation"]>): SearchResult {
  return {
    path: "tldr/nproc.md",
    title: "nproc",
    score: 0,
    tags: [],
    sections: [],
    explanation: { matchedTerms: [], missingTerms: ["cores"], fields: {}, parts: [], termWeights: {}, termNotes: {}, ...explanation },
  };
}

describe("search text", () => {
  it("says a note was found by the vault's own words, with its rank in that lane", () => {
    const text = plainText(searchResultText("cpu cores", [result({ vaultLanguage: { rank: 2, similarity: 0.61 } })]));
    expect(text).toContain("why: close in this vault's own words (meaning rank 2) · missing: cores");
  });

  it("puts the lane after the fields a word matched, and says nothing of it when it did not help", () => {
    const both = plainText(searchResultText("cpu cores", [result({ fields: { title: ["cpu"] }, vaultLanguage: { rank: 7, similarity: 0.4 } })]));
    expect(both).toContain("why: title: cpu · close in this vault's own words (meaning rank 7)");
    const words = plainText(searchResultText("cpu cores", [result({ fields: { title: ["cpu"] } })]));
    expect(words).toContain("why: title: cpu · missing: cores");
    expect(words).not.toContain("vault's own words");
  });

  it("says when the question named the note", () => {
    const parts = [{ name: "named in the question", detail: 'the question says "out of control"', weight: 12 }];
    const text = plainText(searchResultText("who wrote out of control", [result({ fields: { title: ["control"] }, parts })]));
    expect(text).toContain('why: title: control · the question says "out of control" · missing: cores');
  });

  it("shows the fused score the order follows, with the words' rank and score, when the vault-language lane was fused in", () => {
    const moved = { ...result({ fields: { title: ["cpu"] }, vaultLanguage: { rank: 1, similarity: 0.7 }, fusion: { score: 0.032787, wordsRank: 3 } }), score: 21.5 };
    const laneOnly = result({ vaultLanguage: { rank: 2, similarity: 0.6 }, fusion: { score: 0.016129, wordsRank: null } });
    const kept = { ...result({ fusion: { score: 0.04, wordsRank: 1, keptFirst: true } }), score: 80 };
    const text = plainText(searchResultText("cpu cores", [kept, moved, laneOnly]));
    expect(text).toContain("1. nproc — tldr/nproc.md (fused score 0.0400 · words #1, score 80.00, kept first)");
    expect(text).toContain("2. nproc — tldr/nproc.md (fused score 0.0328 · words #3, score 21.50)");
    expect(text).toContain("3. nproc — tldr/nproc.md (fused score 0.0161 · not ranked by its words)");
    expect(text).not.toContain("score 0.00");
  });

  it("writes a note's name with a line break in it visibly, so it cannot fake a result line", () => {
    const faked = { ...result({}), path: "new\n2. Fake result — x.md", title: "new\n2. Fake" };
    const text = plainText(searchResultText("cpu cores", [faked]));
    expect(text).toContain("1. new\\n2. Fake — new\\n2. Fake result — x.md (score 0.00)");
    expect(text).not.toMatch(/^2\. Fake/m);
  });
});

describe("the query as the text echoes it", () => {
  const long = "automerge ".repeat(1_500).trim();

  it("is the part that was read, not the whole of a piped file (the notice says only 2,000 characters were read)", () => {
    for (const text of [plainText(searchResultText(long, [])), plainText(searchResultText(long, [result({})])), plainText(dialResultText(long, { query: long, level: 2, ranLevel: 2, notices: [], results: [], latencyMs: 0, logId: null }))]) {
      expect(text.length).toBeLessThan(2_200);
      expect(text).toContain('automerge automerge…"');
    }
  });
});

describe("levels 2–4 as text", () => {
  const section = (snippet: string, from: "lexical" | "section_vector") => ({ from, unit: "section" as const, headingPath: ["Prices"], line: 3, start: 10, end: 90, snippet });
  const dialResult = (snippet: string, from: "lexical" | "section_vector", lexical: SearchResult | null = null) => ({
    key: "Fuel.md",
    path: "Fuel.md",
    title: "Fuel",
    tags: [],
    score: 0.0325,
    section: section(snippet, from),
    lexical,
    explanation: { lanes: [{ lane: from === "lexical" ? ("lexical" as const) : ("section_vector" as const), rank: 1, contribution: 0.016, score: 0.8 }] },
  });
  const response = (results: ReturnType<typeof dialResult>[]) => ({ query: "diesel", level: 3 as const, ranLevel: 3 as const, notices: [], results, latencyMs: 0, logId: null });

  it("keeps a snippet's blocks on lines of their own, under the result, as level 1 does (it printed one line)", () => {
    const text = plainText(dialResultText("diesel", response([dialResult("What each costs:\nfuel price\ndiesel 1.60", "section_vector")])));
    expect(text).toContain("   What each costs:\n   fuel price\n   diesel 1.60\n");
  });

  it("marks the words a section found by the words matched, as level 1 does (the marks were dropped)", () => {
    const snippet = "What each costs:\ndiesel 1.60";
    const words: SearchResult = { ...result({}), path: "Fuel.md", sections: [{ heading: "Prices", headingPath: ["Prices"], level: 2, line: 3, start: 10, end: 90, snippet, highlights: [[17, 23]], matchedTerms: ["diesel"], closeTerms: [], score: 1 }] };
    const text = plainText(dialResultText("diesel", response([dialResult(snippet, "lexical", words)])));
    expect(text).toContain("   What each costs:\n   «diesel» 1.60\n");
  });

  it("prints a snippet the dial already cut whole, never half an emoji", () => {
    const snippet = `${"a".repeat(239)}😀 and on`;
    const text = plainText(dialResultText("diesel", response([dialResult(snippet, "section_vector")])));
    expect(text).toContain(`   ${snippet}\n`);
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
  });
});
