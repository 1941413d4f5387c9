import { describe, expect, it } from "vitest";
import { conceptsOf, coveredShare, noteCoverage, termMatched, together } from "../../../src/research/stages/judge-coverage";
import { DEFAULT_JUDGE } from "../../../src/research/stages/judge";
import type { SearchResult } from "../../../src/index/types";

function result(matched: string[], section: string[], extra: Partial<SearchResult["explanation"]> = {}): SearchResult {
  return {
    path: "n.md",
    title: "n",
    score: 1,
    tags: [],
    sections: [{ heading: "", headingPath: [], level: 0, line: 1, start: 0, end: 1, snippet: "", highlights: [], matchedTerms: section, closeTerms: section, score: 1 }],
    // As search explains it: every word it looked up is matched or missing.
    explanation: { matchedTerms: matched, missingTerms: ["git", "discard", "uncommitted"].filter((w) => !matched.includes(w)), fields: {}, parts: [], termWeights: { git: 1, discard: 2, uncommitted: 3 }, termNotes: {}, ...extra },
  };
}

describe("judge coverage", () => {
  const required = ["git", "discard", "uncommitted"];

  it("weighs each word of the question by its rarity", () => {
    const r = result(["git", "discard"], ["git", "discard"]);
    const concepts = conceptsOf(required, r.explanation, DEFAULT_JUDGE);
    expect(coveredShare(concepts, noteCoverage(r, concepts, DEFAULT_JUDGE).inNote)).toBeCloseTo(3 / 6, 5);
  });

  it("weighs light a word that asks how things relate where the plan still asks for it ('squash commits together')", () => {
    const r = result(["squash", "commits", "together"], [], { termWeights: { squash: 2, commits: 2, together: 2 } });
    const concepts = conceptsOf(["squash", "commits", "together"], r.explanation, DEFAULT_JUDGE);
    expect(concepts.weight.get("together")).toBeCloseTo(2 * DEFAULT_JUDGE.lightWordWeight, 5);
    expect(concepts.weight.get("commits")).toBe(2);
  });

  it("counts a word the note only has a stand-in for as partly covered, never fully", () => {
    const r = result(["git", "discard"], ["git", "discard"], { standIns: { uncommitted: [{ term: "unstag", strength: 0.9 }] } });
    const concepts = conceptsOf(required, r.explanation, DEFAULT_JUDGE);
    const coverage = noteCoverage(r, concepts, DEFAULT_JUDGE);
    expect(coverage.inNote.get("uncommitted")).toBe(DEFAULT_JUDGE.standInCap);
    expect(coverage.standIns.get("uncommitted")).toEqual(["unstag"]);
    // Inside a section only the words themselves count.
    expect(coverage.closeSection.has("uncommitted")).toBe(false);
  });

  it("takes a word search folded into an earlier one ('tasks' after 'task') as that word's concept", () => {
    const question = ["recurring", "task", "obsidian", "tasks"];
    const explanation = { matchedTerms: ["recurring", "task", "obsidian"], missingTerms: [], fields: {}, parts: [], termWeights: { recurring: 3, task: 1, obsidian: 1 }, termNotes: {}, foldedWords: { tasks: "task" } };
    const r: SearchResult = { ...result([], []), explanation, sections: [{ ...result([], []).sections[0], matchedTerms: explanation.matchedTerms, closeTerms: explanation.matchedTerms }] };
    const concepts = conceptsOf(question, r.explanation, DEFAULT_JUDGE);
    expect(concepts.terms).toEqual(["recurring", "task", "obsidian"]);
    expect(concepts.sameAs.get("tasks")).toBe("task");
    expect(termMatched("tasks", r.explanation)).toBe(true);
    // The note has every word search looked for: it covers the whole question.
    expect(coveredShare(concepts, noteCoverage(r, concepts, DEFAULT_JUDGE).inNote)).toBe(1);
    // Without the fold, "tasks" is a concept of its own that the note lacks.
    const unfolded = { ...explanation, foldedWords: undefined, missingTerms: ["tasks"] };
    expect(conceptsOf(question, unfolded, DEFAULT_JUDGE).terms).toEqual(question);
    expect(termMatched("tasks", unfolded)).toBe(false);
  });

  it("adds two notes' coverage word by word", () => {
    const merged = together(new Map([["git", 1], ["discard", 0.5]]), new Map([["discard", 1]]));
    expect([...merged]).toEqual([["git", 1], ["discard", 1]]);
  });
});
