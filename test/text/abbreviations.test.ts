// Which dots end no sentence: the planner, the index's snippets and the evidence brief read them alike.
import { describe, expect, it } from "vitest";
import { abbreviationBefore } from "../../src/text/abbreviations";

const dotAfter = (text: string, word: string) => text.indexOf(`${word}.`) + word.length;

describe("abbreviationBefore", () => {
  it("knows an abbreviation, a dotted one and an initial", () => {
    const text = "a plugin, e.g. Dataview, vs. Tasks, by J. R. Tolkien, Dr. Who in the U.S. today";
    for (const word of ["e.g", "vs", "J", "Dr", "U.S"]) expect(abbreviationBefore(text, dotAfter(text, word))).toBe(true);
  });

  it("takes a word's, a file's or a figure's dot for a sentence's end", () => {
    const text = "after each use. Open config.json. It was 1982. Then";
    for (const word of ["use", "config.json", "1982"]) expect(abbreviationBefore(text, dotAfter(text, word))).toBe(false);
  });

  it("takes No, Ms and St for abbreviations only as written with a capital: in lower case they end sentences", () => {
    const text = "See No. 5 and Ms. Lee on Main St. today; it took 200 ms. I said no. The 1st. Then";
    for (const word of ["No", "Ms", "St"]) expect(abbreviationBefore(text, dotAfter(text, word))).toBe(true);
    for (const word of ["200 ms", "said no", "1st"]) expect(abbreviationBefore(text, dotAfter(text, word))).toBe(false);
  });
});
