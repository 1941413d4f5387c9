// vault_search.v1 from the index's results: the same facts under snake_case names, the note's
// source key as a pack would cite it, the score the order follows, and the level asked and run.
import { describe, expect, it } from "vitest";
import { noteSourceKey } from "../../../src/evidence/keys";
import type { SearchResult } from "../../../src/index/types";
import { vaultSearchJson, vaultSearchSchema } from "../../../src/cli/json/vault-search-json";

const result: SearchResult = {
  path: "Libraries/Yjs.md",
  title: "Yjs",
  score: 12.5,
  tags: ["crdt"],
  sections: [{ heading: "Caveats", headingPath: ["Yjs", "Caveats"], level: 2, line: 9, start: 100, end: 300, snippet: "Yjs is fast", highlights: [[0, 3]], matchedTerms: ["yjs"], closeTerms: ["yjs"], score: 3 }],
  explanation: { matchedTerms: ["yjs"], missingTerms: ["why"], fields: { title: ["yjs"] }, parts: [{ name: "title", detail: "matched", weight: 10 }], termWeights: { yjs: 2.1 }, termNotes: { yjs: 3 }, termClumping: { yjs: { clumping: 1.4, notes: 3 } } },
};

describe("vaultSearchJson", () => {
  it("renames every field to snake_case and keys the note as a pack would", () => {
    const json = vaultSearchJson({ query: "why yjs", limit: 5 }, [result]);
    expect(vaultSearchSchema.parse(json)).toEqual(json);
    expect(json).toMatchObject({ schema: "vault_search.v1", level: 1, ran_level: 1, notices: [], tags: [] });
    expect(json.results[0]).toMatchObject({ source_key: noteSourceKey("Libraries/Yjs.md"), path: "Libraries/Yjs.md" });
    expect(json.results[0].sections[0]).toMatchObject({ heading_path: ["Yjs", "Caveats"], matched_terms: ["yjs"], close_terms: ["yjs"] });
    expect(json.results[0].explanation).toMatchObject({ matched_terms: ["yjs"], missing_terms: ["why"], term_weights: { yjs: 2.1 }, term_notes: { yjs: 3 }, term_clumping: { yjs: { clumping: 1.4, notes: 3 } } });
  });

  it("scores a result of the vault-language lane's fusion by the fused score its place follows, the words' rank and score beside it", () => {
    const moved: SearchResult = { ...result, explanation: { ...result.explanation, vaultLanguage: { rank: 1, similarity: 0.7 }, fusion: { score: 0.032787, wordsRank: 3 } } };
    const laneOnly: SearchResult = { ...result, path: "Libraries/Automerge.md", score: 0, explanation: { ...result.explanation, vaultLanguage: { rank: 2, similarity: 0.6 }, fusion: { score: 0.016129, wordsRank: null } } };
    const json = vaultSearchJson({ query: "why yjs", limit: 5 }, [moved, laneOnly]);
    expect(vaultSearchSchema.parse(json)).toEqual(json);
    expect(json.results.map((r) => r.score)).toEqual([0.032787, 0.016129]);
    expect(json.results[0].explanation.fusion).toEqual({ score: 0.032787, words_rank: 3, words_score: 12.5, kept_first: false });
    // Only the lane found it: it has no words' rank, and no words' score of 0 to read as one.
    expect(json.results[1].explanation.fusion).toEqual({ score: 0.016129, words_rank: null, words_score: null, kept_first: false });
    // Kept first, it says so.
    const kept = vaultSearchJson({ query: "yjs", limit: 5 }, [{ ...moved, explanation: { ...moved.explanation, fusion: { score: 0.04, wordsRank: 1, keptFirst: true } } }]);
    expect(kept.results[0].explanation.fusion?.kept_first).toBe(true);
    // Words alone: the words' score, no fusion.
    expect(vaultSearchJson({ query: "yjs", limit: 5 }, [result]).results[0]).toMatchObject({ score: 12.5 });
    expect(vaultSearchJson({ query: "yjs", limit: 5 }, [result]).results[0].explanation.fusion).toBeUndefined();
  });

  it("says which level ran when it is lower than the one asked", () => {
    const json = vaultSearchJson({ query: "q", limit: 5, level: 3, ranLevel: 1, notices: [{ kind: "level_unavailable", message: "no embeddings" }] }, []);
    expect(json).toMatchObject({ level: 3, ran_level: 1, notices: [{ kind: "level_unavailable", message: "no embeddings" }] });
  });
});
