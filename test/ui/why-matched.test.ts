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

  it("at level 1 with the vault's language, shows the fused score the cards are in the order of, and the words' own beside it", () => {
    const fusion = { score: 0.093477, fused_with: "vault_language" as const, words_rank: 4, words_score: 41.709, kept_first: false };
    expect(scoreLine({ ...base, score: 41.709, fusion, lanes: [{ name: "full_text" }] })).toBe("Fused score (words and the vault's language) 0.0935 · words #4, words score 41.71");
    const onlyMeaning = { ...fusion, words_rank: null, words_score: null };
    expect(scoreLine({ ...base, score: 0, fusion: onlyMeaning, lanes: [{ name: "full_text" }] })).toBe("Fused score (words and the vault's language) 0.0935 · not ranked by its words");
  });

  it("keeps a web result's score as it is", () => {
    expect(scoreLine({ ...base, score: 0.5, lanes: [{ name: "external_search" }] })).toBe("Score 0.50");
  });
});
