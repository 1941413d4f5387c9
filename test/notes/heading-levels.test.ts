// The property tests' reading of a note's headings (heading-levels.ts, over commonmark.js): the
// cases a hand-written model got wrong, where an empty list item or an indented line under one
// keeps the text above it a paragraph (and so a heading over --- or ===).
import { describe, expect, it } from "vitest";
import { headingsIn } from "./heading-levels";

describe("headingsIn", () => {
  it.each([
    ["a\n- \n---", [{ level: 2, text: "a" }]],
    ["a\n* \n---", [{ level: 2, text: "a *" }]],
    ["Sources\n1. \n===", [{ level: 1, text: "Sources 1." }]],
    ["a\n2. b\n---", [{ level: 2, text: "a 2. b" }]],
    ["> a\n> * \n> ---", [{ level: 2, text: "a *" }]],
    ["\n-\n\t# Sources", [{ level: 1, text: "Sources" }]],
    ["### Sources\n\\- \n---", [{ level: 3, text: "Sources" }, { level: 2, text: "-" }]],
    ["a\n>\n---", []],
    ["a\n\n---", []],
    ["```\n# not a heading\n```", []],
    ["    # indented code", []],
    ["\\# escaped", []],
  ])("finds in %j the headings CommonMark finds", (markdown, headings) => {
    expect(headingsIn(markdown)).toEqual(headings);
  });
});
