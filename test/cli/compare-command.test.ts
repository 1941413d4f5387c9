// `vault-research compare` as a person reads it: the legend says what "new" and "gone" mean as the
// table uses them (a move from the level before), and a query log that could not be written is
// said, as `search` says it, without failing the comparison.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { comparisonText } from "../../src/cli/compare-command";
import { QUERY_LOG_NAME } from "../../src/cli/file-query-log";
import { runCli } from "../../src/cli/run";
import { renderStyled } from "../../src/cli/terminal-style";
import type { LevelComparison } from "../../src/index/dial/level-comparison";

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-compare-"));
  mkdirSync(path.join(tmp, "vault"));
  writeFileSync(path.join(tmp, "vault", "Tomatoes.md"), "# Tomatoes\n\nWater tomatoes deeply once a week.\n");
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

async function compare(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(["compare", ...argv, "--vault", path.join(tmp, "vault"), "--cache-dir", path.join(tmp, "cache")], { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: tmp });
  return { code, out, err };
}

describe("vault-research compare", () => {
  it("says 'new' of a note not shown at the level before, not of one first shown there", () => {
    // Shown at level 1, dropped at level 2, back at level 3: "new" at level 3, though not first shown there.
    const comparison: LevelComparison = {
      query: "tomatoes",
      levels: [1, 2, 3, 4].map((level) => ({ level: level as 1 | 2 | 3 | 4, ranLevel: level as 1 | 2 | 3 | 4, comparedWith: level === 1 ? null : ((level - 1) as 1 | 2 | 3), latencyMs: 1, notices: [], keys: level === 2 ? [] : ["Tomatoes.md"] })),
      rows: [{ key: "Tomatoes.md", title: "Tomatoes", ranks: [1, null, 1, 1], moves: [{ kind: "same" }, { kind: "gone" }, { kind: "new" }, { kind: "same" }] }],
    };
    const text = renderStyled(comparisonText(comparison), false);
    expect(text).toContain("1        - gone   1 new    1        Tomatoes — Tomatoes.md");
    expect(text).toContain("new: not shown at the level before; gone: shown at the level before, not at this one;");
    expect(text).not.toContain("first shown");
  });

  it("says a level that fell back did not run, and gives it no ranks: a failed rerank is not 'every note kept its place'", async () => {
    const ranks: Record<string, (number | null)[]> = { "Tomatoes.md": [1, 2, 1, null], "Basil.md": [2, 1, 2, null] };
    const comparison: LevelComparison = {
      query: "tomatoes",
      levels: [
        { level: 1, ranLevel: 1, comparedWith: null, latencyMs: 1, notices: [], keys: ["Tomatoes.md", "Basil.md"] },
        { level: 2, ranLevel: 2, comparedWith: 1, latencyMs: 1, notices: [], keys: ["Basil.md", "Tomatoes.md"] },
        { level: 3, ranLevel: 3, comparedWith: 2, latencyMs: 1, notices: [], keys: ["Tomatoes.md", "Basil.md"] },
        { level: 4, ranLevel: 3, comparedWith: null, latencyMs: 1, notices: [{ kind: "rerank_failed", reason: "model_error", message: "m could not reorder the results; level 3's order stands." }], keys: ["Tomatoes.md", "Basil.md"] },
      ],
      rows: Object.entries(ranks).map(([key, r]) => ({
        key,
        title: key.slice(0, -3),
        ranks: r,
        moves: [{ kind: "same" }, key === "Basil.md" ? { kind: "up", by: 1 } : { kind: "down", by: 1 }, key === "Basil.md" ? { kind: "down", by: 1 } : { kind: "up", by: 1 }, { kind: "absent" }],
      })),
    };
    const text = renderStyled(comparisonText(comparison), false);
    expect(text).toContain("  L4 rerank: did not run; level 3 (multi-field) ran instead · 1 ms\n");
    expect(text).toContain("  L3 multi-field: ran · 2 results · 1 ms\n");
    expect(text).toContain("1        2 ↓1     1 ↑1     not run  Tomatoes — Tomatoes.md");
    expect(text).toContain("not run: the level could not run (the lines above say why)");
  });

  it("warns when its searches could not go to the query log, and still compares", async () => {
    expect((await compare("tomatoes", "--json")).code).toBe(0);
    const cache = path.join(tmp, "cache");
    const folder = path.join(cache, readdirSync(cache).find((f) => f.startsWith("index-") && !f.endsWith(".json"))!);
    // Something that is not a file where the log goes (a sync tool's folder, a read-only mount).
    rmSync(path.join(folder, QUERY_LOG_NAME));
    mkdirSync(path.join(folder, QUERY_LOG_NAME));
    const run = await compare("tomatoes", "--json");
    expect(run.code).toBe(0);
    expect((JSON.parse(run.out) as { rows: unknown[] }).rows).toHaveLength(1);
    expect(run.err).toContain("warning: The query log could not be written");
  });

  it("shows the query as the levels read it: a pasted page is cut, as search cuts it, not echoed whole", async () => {
    const pasted = "tomatoes ".repeat(20_000);
    const text = await compare(pasted);
    expect(text.code).toBe(0);
    expect(text.out).toContain("only its first 2,000 were read");
    expect(text.out).not.toContain(pasted.slice(0, 3000));
    const json = JSON.parse((await compare(pasted, "--json")).out) as { query: string };
    expect(json.query.length).toBeLessThanOrEqual(2000);
  });
});

describe("vault-research compare, the query on its line", () => {
  it("writes a line break in the query visibly, as search does: it cannot start a line that looks like a level's", async () => {
    const query = "basil\n  L4 rerank: ran · 9 results · 1 ms";
    const run = await compare(query);
    expect(run.code).toBe(0);
    expect(run.out.split("\n")[0]).toBe('"basil\\n  L4 rerank: ran · 9 results · 1 ms" at the four levels of the search dial:');
    expect(run.out).toContain('No notes match "basil\\n  L4 rerank: ran · 9 results · 1 ms" at any level.');
    expect(run.out).not.toContain("\n  L4 rerank: ran · 9");
  });
});
