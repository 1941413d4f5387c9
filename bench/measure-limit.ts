// The phone test: under --max-old-space-size=512 on one core, a large vault is indexed from
// scratch, saved, brought up again from the cache in a new index, and searched. A child process
// that runs out of memory simply fails; the parent reports how.
import { rmSync } from "node:fs";
import { FileIndexCache } from "../src/cli/file-index-cache";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { VaultIndex } from "../src/index/vault-index";
import { blockedLoop, peakRssMb, sliceRecorder, timed } from "./bench-tools";

export async function underLimit(vault: string, work: string, query: string): Promise<Record<string, unknown>> {
  rmSync(work, { recursive: true, force: true });
  const store = new FsNoteStore(vault);
  const cache = new FileIndexCache(work, vault);
  const loop = blockedLoop();
  const slices = sliceRecorder();
  const yieldToUi = (ms: number) => slices.yieldToUi(ms);
  let first: VaultIndex | null = new VaultIndex({ yieldToUi });
  const built = first;
  const cold = await timed(() => built.sync(store, null));
  const save = await timed(() => built.save(cache));
  const notes = built.status().notes;
  // A phone holds one index: the one just built goes before the next comes up from the cache.
  first = null;
  const warmIndex = new VaultIndex({ yieldToUi });
  const warm = await timed(() => warmIndex.sync(store, cache));
  const search = await timed(() => warmIndex.search(query, store, { limit: 10 }));
  return {
    ok: warm.value.mode === "cache" && search.value.length > 0,
    notes,
    cold_ms: cold.ms,
    save_ms: save.ms,
    warm_start_ms: warm.ms,
    search_ms: search.ms,
    peak_rss_mb: peakRssMb(),
    heap_limit_mb: 512,
    longest_slice_ms: slices.longest(),
    longest_block_ms: await loop.stop(),
  };
}
