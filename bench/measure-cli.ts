// One `vault-research search` on a warm cache, as a person runs it, against a fresh Node process
// that loads plain MiniSearch's saved JSON for the same vault and searches once: wall-clock time
// of each whole process, from spawn to exit, runs alternated.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { percentile, processMs, repoRoot, round } from "./bench-tools";
import { plainSearchOnceScript } from "./plain-minisearch";

export async function cliSearch(vault: string, cacheDir: string, plainFile: string, queries: string[], runs: number): Promise<Record<string, unknown>> {
  const cli = path.join(repoRoot(), "dist", "cli.cjs");
  mkdirSync(cacheDir, { recursive: true });
  const warmUp = await processMs(process.execPath, [cli, "index", "--vault", vault, "--cache-dir", cacheDir]);
  if (!warmUp.ok) throw new Error("vault-research index failed");
  const script = path.join(cacheDir, "plain-search-once.cjs");
  writeFileSync(script, plainSearchOnceScript(path.join(repoRoot(), "node_modules", "minisearch", "dist", "cjs", "index.cjs")));
  const ours: number[] = [];
  const plain: number[] = [];
  for (let run = 0; run < runs; run++) {
    for (const query of queries) {
      const a = await processMs(process.execPath, [cli, "search", query, "--vault", vault, "--cache-dir", cacheDir, "--json"]);
      const b = await processMs(process.execPath, [script, plainFile, query]);
      if (!a.ok || !b.ok) throw new Error(`a search process failed (${a.ok ? "plain" : "ours"})`);
      ours.push(a.ms);
      plain.push(b.ms);
    }
  }
  const median = (v: number[]) => percentile(v, 50);
  return { runs: ours.length, ms: median(ours), plain_ms: median(plain), ratio: round(median(ours) / median(plain)), ours_range_ms: [Math.min(...ours), Math.max(...ours)], plain_range_ms: [Math.min(...plain), Math.max(...plain)] };
}
