// `compare --json` with a level that fell back: its ranks are null and its moves absent, and the
// documented schema says so in words, so a script reading the JSON does not take a null for "not shown".
import { describe, expect, it } from "vitest";
import { cliJsonSchemaDocument } from "../../../src/cli/json/cli-json-schemas";
import { levelComparisonJson, levelComparisonSchema } from "../../../src/cli/json/level-comparison-json";
import type { LevelComparison } from "../../../src/index/dial/level-comparison";

// Level 2 could not embed the query (ran level 1); level 3 ran, compared with level 1; level 4's rerank failed.
const comparison: LevelComparison = {
  query: "tomatoes",
  levels: [
    { level: 1, ranLevel: 1, comparedWith: null, latencyMs: 1, notices: [], keys: ["Tomatoes.md", "Basil.md"] },
    { level: 2, ranLevel: 1, comparedWith: null, latencyMs: 1, notices: [], keys: ["Tomatoes.md", "Basil.md"] },
    { level: 3, ranLevel: 3, comparedWith: 1, latencyMs: 1, notices: [], keys: ["Basil.md", "Tomatoes.md"] },
    { level: 4, ranLevel: 3, comparedWith: null, latencyMs: 1, notices: [], keys: ["Basil.md", "Tomatoes.md"] },
  ],
  rows: [{ key: "Basil.md", title: "Basil", ranks: [2, null, 1, null], moves: [{ kind: "same" }, { kind: "absent" }, { kind: "up", by: 1 }, { kind: "absent" }] }],
};

type Described = { description?: string; items?: { properties?: Record<string, { description?: string }> } };

describe("level_comparison.v1", () => {
  it("gives a level that did not run null ranks, and the move into the next level that ran from the last one that ran", () => {
    const json = levelComparisonJson(comparison, 10);
    expect(levelComparisonSchema.safeParse(json).success).toBe(true);
    expect(json.levels.map((l) => l.ran_level)).toEqual([1, 1, 3, 3]);
    expect(json.rows[0].ranks).toEqual([2, null, 1, null]);
    expect(json.rows[0].moves).toEqual([
      { kind: "same", by: null },
      { kind: "absent", by: null },
      { kind: "up", by: 1 },
      { kind: "absent", by: null },
    ]);
  });

  it("documents a null rank at a level that did not run, and moves from the last level that ran", () => {
    const rows = (cliJsonSchemaDocument("level_comparison.v1") as { properties: { rows: Described } }).properties.rows;
    const row = rows.items!.properties!;
    expect(row.ranks.description).toContain("or where that level did not run (`ran_level` lower)");
    expect(row.moves.description).toContain("from the last level before it that ran");
    expect(row.moves.description).not.toContain("from the one before");
    expect(rows.description).toContain("highest level that ran");
  });
});
