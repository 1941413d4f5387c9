// Explanations as data: which fields and words a note matched (named by the word the user typed,
// in the order typed), what is missing, and the score in parts that add up to it.
import { describe, expect, it } from "vitest";
import { explainCandidate, type Candidate, type ExplainContext } from "../../../src/index/ranking/explain";
import type { QueryTerm } from "../../../src/index/ranking/query-terms";
import { DEFAULT_RANKING } from "../../../src/index/ranking/ranking-options";
import { createAnalyzer } from "../../../src/index/tokenize";
import type { IndexedNote } from "../../../src/index/types";
import { stringContaining } from "../../support/typed-matchers";

const analyzer = createAnalyzer({ stemming: false });

function term(t: string, group: number, over: Partial<QueryTerm> = {}): QueryTerm {
  return { term: t, word: t, weight: 1, group, synonym: false, ...over };
}

function note(title: string): IndexedNote {
  return { path: `${title}.md`, mtime: 1, size: 1, title, aliases: [], tags: [], sourceUrls: [], problems: [] };
}

// "gardan tools", plus "tools"'s synonym "kit": the note matched "garden" (fuzzy, for "gardan") in
// its title and body, and "kit" in its body. Looked up rarest first: kit, then tools, then gardan.
const TERMS = [term("gardan", 0), term("tools", 1), term("kit", 1, { word: "tools", weight: 0.6, synonym: true })];
const CANDIDATE: Candidate = {
  path: "Garden.md",
  textScore: 10,
  matched: [2, 0],
  matches: [{ kit: ["body"] }, { garden: ["title", "body"] }],
};

function ctx(over: Partial<ExplainContext> = {}): ExplainContext {
  return { analyzer, ranking: DEFAULT_RANKING, terms: TERMS, tags: [], stats: { termWeights: { gardan: 1.2, tools: 0.8 }, termNotes: { gardan: 1, tools: 4 } }, ...over };
}

describe("explainCandidate", () => {
  it("names fields by the words typed, in the order typed, and maps note terms back to them", () => {
    const hit = explainCandidate(CANDIDATE, 1, undefined, ctx());
    expect(hit.explanation.fields).toEqual({ title: ["gardan"], body: ["gardan", "tools"] });
    expect(hit.explanation.matchedTerms).toEqual(["gardan", "tools"]);
    expect(hit.explanation.missingTerms).toEqual([]);
    expect([...hit.docTerms]).toEqual([
      ["garden", "gardan"],
      ["kit", "tools"],
    ]);
    expect(hit.explanation.termWeights).toEqual({ gardan: 1.2, tools: 0.8 });
  });

  it("lists the words a note lacks", () => {
    const hit = explainCandidate({ ...CANDIDATE, matched: [0], matches: [{ garden: ["body"] }] }, 0.6, undefined, ctx());
    expect(hit.explanation.matchedTerms).toEqual(["gardan"]);
    expect(hit.explanation.missingTerms).toEqual(["tools"]);
    expect(hit.explanation.fields).toEqual({ body: ["gardan"] });
  });

  it("breaks the score into parts that add up to it", () => {
    const hit = explainCandidate(CANDIDATE, 0.5, note("Garden tools"), ctx({ tags: ["home"] }));
    const parts = hit.explanation.parts;
    expect(parts.map((p) => p.name)).toEqual(["text match", "query coverage", "title match", "tag"]);
    expect(parts[0]).toMatchObject({ weight: 10, detail: stringContaining("title ×5") });
    // 10 × 0.5² = 2.5; the title has one of its two words in the query: 2.5 × 0.5 × 0.5² ≈ 0.313.
    expect(parts[1]).toMatchObject({ weight: -7.5, detail: "2 of 2 query words matched, 50% of the query's weight (rare words weigh more)" });
    expect(parts[2]).toEqual({ name: "title match", detail: "50% of the title's words are in the query", weight: 0.313 });
    expect(parts[3]).toEqual({ name: "tag", detail: "has #home", weight: 0 });
    expect(hit.score).toBe(2.813);
    expect(parts.reduce((sum, p) => sum + p.weight, 0)).toBeCloseTo(hit.score, 2);
  });

  it("gives a title bonus only to short titles with query words in them", () => {
    const names = (title: string) => explainCandidate(CANDIDATE, 1, note(title), ctx()).explanation.parts.map((p) => p.name);
    expect(names("Tools")).toContain("title match");
    expect(names("Kitchen")).not.toContain("title match");
    expect(names("tools for the garden shed and the allotment")).not.toContain("title match");
  });
});
