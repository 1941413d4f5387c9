// `level_comparison.v1`: what `vault-research compare --json` prints — one query at all four levels
// of the search dial, each level's results (and the level that really ran), and per note its rank
// at each level with its move from the last level before it that ran. A level that fell back (ran a
// lower level's search) gives no ranks of its own: its results are that lower level's.
import * as z from "zod";
import type { LevelComparison, RankMove } from "../../index/dial/level-comparison";
import { noteSourceKey } from "../../evidence/keys";

const level = z.number().int().min(1).max(4);

export const levelComparisonSchema = z.strictObject({
  schema: z.literal("level_comparison.v1"),
  query: z.string(),
  limit: z.number().int().positive(),
  levels: z.array(
    z.strictObject({
      level,
      ran_level: level.describe("Lower than level when embeddings or a chat model were missing or failed (notices say why); results are then that lower level's."),
      latency_ms: z.number().nonnegative(),
      notices: z.array(z.strictObject({ kind: z.string(), message: z.string() })),
      results: z.array(z.string()).describe("Vault paths, best first."),
    }),
  ),
  rows: z
    .array(
      z.strictObject({
        source_key: z.string(),
        path: z.string(),
        title: z.string(),
        ranks: z.array(z.number().int().positive().nullable()).length(4).describe("Rank at levels 1–4; null where the note was not shown, or where that level did not run (`ran_level` lower)."),
        moves: z
          .array(z.strictObject({ kind: z.enum(["same", "up", "down", "new", "gone", "absent"]), by: z.number().int().positive().nullable() }))
          .length(4)
          .describe("Move into each level from the last level before it that ran (up: a better rank, by places); at level 1, and at a level that did not run, same or absent."),
      }),
    )
    .describe("Best at the highest level that ran first, then by the best rank at any level."),
});
export type LevelComparisonJson = z.infer<typeof levelComparisonSchema>;

export function levelComparisonJson(comparison: LevelComparison, limit: number, vaultPaths?: readonly string[]): LevelComparisonJson {
  return {
    schema: "level_comparison.v1",
    query: comparison.query,
    limit,
    levels: comparison.levels.map((l) => ({ level: l.level, ran_level: l.ranLevel, latency_ms: l.latencyMs, notices: l.notices.map((n) => ({ kind: n.kind, message: n.message })), results: l.keys })),
    rows: comparison.rows.map((r) => ({ source_key: noteSourceKey(r.key, vaultPaths), path: r.key, title: r.title, ranks: r.ranks, moves: r.moves.map(moveJson) })),
  };
}

function moveJson(move: RankMove): { kind: RankMove["kind"]; by: number | null } {
  return { kind: move.kind, by: move.kind === "up" || move.kind === "down" ? move.by : null };
}
