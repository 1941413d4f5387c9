// Search latency with both indexes in one process (each brought up from its own cache): ours with
// snippets, ours ranking only, and plain MiniSearch's default search; at the smallest size also
// single-note updates and the local part of a research run.
import { FileIndexCache } from "../src/cli/file-index-cache";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { parseQuery } from "../src/index/query";
import { VaultIndex } from "../src/index/vault-index";
import { percentile, round, timed } from "./bench-tools";
import { loadPlain } from "./plain-minisearch";
import { researchLocalMs } from "./research-local";

export interface SearchArgs {
  vault: string;
  work: string;
  plainFile: string;
  queries: string[];
  /** Queries run once untimed first. */
  warmUp: number;
  /** Timed passes over the queries. */
  reps: number;
  extras: boolean;
}

export async function searchBoth(args: SearchArgs): Promise<Record<string, unknown>> {
  const store = new FsNoteStore(args.vault);
  const ours = new VaultIndex();
  const report = await ours.sync(store, new FileIndexCache(args.work, args.vault));
  if (report.mode !== "cache") throw new Error("the search run could not load our cache");
  const plain = loadPlain(args.plainFile);
  const latency = async (fn: (q: string) => unknown) => {
    for (const q of args.queries.slice(0, args.warmUp)) await fn(q);
    const times: number[] = [];
    for (let rep = 0; rep < args.reps; rep++) for (const q of args.queries) times.push((await timed(() => fn(q))).ms);
    return { p50: percentile(times, 50), p95: percentile(times, 95) };
  };
  const plainDefault = await latency((q) => plain.search(q));
  const full = await latency((q) => ours.search(q, store, { limit: 10 }));
  const rankOnly = await latency((q) => ours.rank(parseQuery(q), 10));
  const search = { queries: args.queries.length, full, rank_only: rankOnly, plain_default_search: plainDefault, ratio_p95: round(full.p95 / plainDefault.p95), rank_only_ratio_p95: round(rankOnly.p95 / plainDefault.p95) };
  if (!args.extras) return { search_ms: search };
  return { search_ms: search, single_note_update_ms: await updateLatency(ours, store), research_local_ms: await researchLocalMs(ours, store, args.queries) };
}

/** A note edited (text already in hand, as the plugin has it) and indexed again, 300 times. */
async function updateLatency(index: VaultIndex, store: FsNoteStore): Promise<{ p50: number; p95: number }> {
  const files = (await store.list()).filter((f) => index.note(f.path));
  const times: number[] = [];
  for (let i = 0; i < 300; i++) {
    const file = files[(i * 7919) % files.length];
    const text = `${await store.read(file.path)}\n\nupdated ${i}`;
    times.push((await timed(() => index.applyText(file.path, text, file.mtime + 2, file.size + 10))).ms);
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}
