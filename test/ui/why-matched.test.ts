// @vitest-environment happy-dom
// "Why it matched": the score is named for what it measures, because the cards stand in the order
// the run found them (words fused with the vault's meaning, or with vectors), not by that number.
import { describe, expect, it } from "vitest";
import "../stubs/obsidian";
import { renderWhy } from "../../src/ui/why-matched";

function scoreLine(retrieval: Parameters<typeof renderWhy>[1]): string {
  const card = document.body.createDiv();
  renderWhy(card, retrieval);
  return card.querySelector(".vault-research-scores li")?.textContent ?? "";
}

const base = { signals: [], matched_terms: ["kite"], missing_terms: [] };

describe("why it matched: the score's name", () => {
  it("calls a vault row's score its words' score, and a dial run's its fused score, with the digits that tell fused scores apart", () => {
    expect(scoreLine({ ...base, score: 9.1, lanes: [{ name: "full_text" }] })).toBe("Words score 9.10");
    expect(scoreLine({ ...base, score: 0.032787, lanes: [{ name: "full_text" }, { name: "note_vector" }] })).toBe("Fused score (words and meaning, RRF) 0.0328");
  });

  it("keeps a web result's score as it is", () => {
    expect(scoreLine({ ...base, score: 0.5, lanes: [{ name: "external_search" }] })).toBe("Score 0.50");
  });
});
