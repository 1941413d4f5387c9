import { describe, expect, it } from "vitest";
import { ordinal, rerankMoveWords, scoreLines, sectionWords, similarityOf } from "../../src/ui/dial-result-words";
import { dialResult } from "./dial/fake-dial-host";

describe("a dial result in words", () => {
  it("names the matched part: a heading path for words, the section, title or headings by meaning", () => {
    const base = { line: 1, start: 0, end: 1, snippet: "" };
    expect(sectionWords({ ...base, from: "lexical", unit: "section", headingPath: ["A", "B"] })).toBe("A › B");
    expect(sectionWords({ ...base, from: "section_vector", unit: "section", headingPath: ["A", "B"] })).toBe("Matched section: A › B");
    expect(sectionWords({ ...base, from: "section_vector", unit: "section", headingPath: [] })).toBe("Matched section: the note's opening");
    expect(sectionWords({ ...base, from: "section_vector", unit: "title", headingPath: [] })).toBe("Matched by its title");
    expect(sectionWords({ ...base, from: "section_vector", unit: "headings", headingPath: [] })).toBe("Matched by its headings");
  });

  it("writes ranks as ordinals, teens included", () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111].map(ordinal)).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]);
  });

  it("says where the rerank moved a result", () => {
    expect(rerankMoveWords({ before: 5, after: 2 })).toBe("moved up 3 (5th → 2nd)");
    expect(rerankMoveWords({ before: 2, after: 3 })).toBe("moved down 1 (2nd → 3rd)");
    expect(rerankMoveWords({ before: 1, after: 1 })).toBe("kept 1st");
  });

  it("at level 1 shows the words lane alone, with no fused score", () => {
    expect(scoreLines(dialResult({ explanation: { lanes: [{ lane: "lexical", rank: 1, contribution: 0, score: 2.345 }] } }))).toEqual(["Words: 1st · score 2.35"]);
  });

  it("says the vault language's rank where it moved a note, so a lower words' score above a higher one says why", () => {
    const lexical = (score: number, meaning: { rank: number; similarity: number }) => ({ path: "Notes/Kites.md", title: "Kites", score, tags: [], sections: [], explanation: { matchedTerms: [], missingTerms: [], fields: {}, parts: [], termWeights: {}, termNotes: {}, vaultLanguage: meaning } });
    const lifted = dialResult({ score: 3, lexical: lexical(3, { rank: 1, similarity: 0.812 }), explanation: { lanes: [{ lane: "lexical", rank: 2, contribution: 0, score: 3 }] } });
    expect(scoreLines(lifted)).toEqual(["Words: 2nd · score 3", "Meaning in this vault: 1st · similarity 0.81"]);
    const byMeaningAlone = dialResult({ score: 0, lexical: lexical(0, { rank: 2, similarity: 0.74 }), explanation: { lanes: [] } });
    expect(scoreLines(byMeaningAlone)).toEqual(["Meaning in this vault: 2nd · similarity 0.74"]);
  });

  it("takes the best vector lane's similarity, none when only words matched", () => {
    expect(similarityOf(dialResult())).toBeNull();
    const both = dialResult({
      explanation: {
        lanes: [
          { lane: "lexical", rank: 1, contribution: 1 / 61, score: 9 },
          { lane: "note_vector", rank: 2, contribution: 1 / 62, score: 0.31 },
          { lane: "section_vector", rank: 1, contribution: 1 / 61, score: 0.44 },
        ],
      },
    });
    expect(similarityOf(both)).toBe(0.44);
  });
});
