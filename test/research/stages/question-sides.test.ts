// The two sides of a question that compares or relates two things (question-sides.ts): the judge
// wants an answer to say something of each.
import { describe, expect, it } from "vitest";
import { questionSides, sideConcepts } from "../../../src/research/stages/question-sides";
import { DEFAULT_JUDGE } from "../../../src/research/stages/judge";
import { conceptsOf } from "../../../src/research/stages/judge-coverage";
import { planQuestion } from "../../../src/research/stages/plan";
import type { SearchResult } from "../../../src/index/types";

/** The question's concepts as the judge weighs them, each word of weight 1 (`folded`: words search read as an earlier one). */
function concepts(question: string, folded: Record<string, string> = {}) {
  const required = planQuestion(question, { currentYear: 2026 }).required_terms;
  const explanation: SearchResult["explanation"] = { matchedTerms: [], missingTerms: [], fields: {}, parts: [], termWeights: {}, termNotes: {}, foldedWords: folded };
  return { required, concepts: conceptsOf(required, explanation, DEFAULT_JUDGE) };
}

describe("questionSides", () => {
  it.each([
    ["what is the difference between foam grep and foam search?", ["foam grep", "foam search"]],
    ["foam grep vs. foam search", ["foam grep", "foam search"]],
    ["iostat vs vmstat: which one shows per-disk throughput?", ["iostat", "vmstat"]],
    ["how does foam grep relate to foam search?", ["foam grep", "foam search"]],
    ["how is putting a task on hold different from making it depend on another task?", ["putting a task on hold", "making it depend on another task"]],
    ["how do group by function and sort by function differ, and what does each return?", ["group by function", "sort by function"]],
    ["compare the checkbox symbols of the things theme with the minimal theme", ["the checkbox symbols of the things theme", "the minimal theme"]],
    ["fd compared to find for finding files - how do you do it with each?", ["fd", "find for finding files"]],
    ["should i use share or export to get a page out, and what is the difference?", ["share", "export to get a page out"]],
    ["obsidian vs vs code for writing notes", ["obsidian", "vs code for writing notes"]],
  ])("%s", (question, sides) => {
    expect(questionSides(question)).toEqual(sides);
  });

  it.each([["how do i sync silverbullet and logseq so both apps edit the same files?"], ["extract a tar archive"], ["tasks due today or tomorrow"], ["catch typos while i write my notes in vs code"], ["use it in the browser without installing vs. code"]])("a question that compares nothing has no sides: %s", (question) => {
    expect(questionSides(question)).toBeNull();
  });
});

describe("sideConcepts", () => {
  it("keeps each side's own concepts; the subject both share is neither's", () => {
    const question = "what is the difference between foam grep and foam search?";
    const { required, concepts: c } = concepts(question);
    expect(sideConcepts(questionSides(question)!, c, required)).toEqual([["grep"], ["search"]]);
  });

  it("has no sides when one side's words are all the other's (a word search read as another counts as that one)", () => {
    const question = "compare a task with tasks";
    const { required, concepts: c } = concepts(question, { tasks: "task" });
    expect(sideConcepts(questionSides(question)!, c, required)).toBeNull();
  });
});
