// The phone test: under --max-old-space-size=512 on one core, a large vault is indexed from
// scratch, its language learned (as an app does behind its ready index), saved, brought up again
// from that cache in a new index, and searched. A child process that runs out of memory simply
// fails; the parent reports how. The first index is gone before the second comes up, as on a phone,
// and nothing of it runs on behind the figures.
import { rmSync } from "node:fs";
import { FileIndexCache } from "../src/cli/file-index-cache";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { VaultIndex } from "../src/index/vault-index";
import { blockedLoop, peakRssMb, sliceRecorder, timed } from "./bench-tools";

/** The cold half: built, language learned, saved; the index goes with this function's end. */
async function buildLearnAndSave(store: FsNoteStore, cache: FileIndexCache, yieldToUi: (ms: number) => Promise<void>) {
  const index = new VaultIndex({ yieldToUi });
  const cold = await timed(() => index.sync(store, null));
  // Saved before its language was learned, the cache lacked it: the warm index learned it all again,
  // both indexes learning at once behind the figures (a 9,282-note run went on 25 s after them).
  const learned = await timed(() => index.languageSettled());
  const save = await timed(() => index.save(cache));
  return { notes: index.status().notes, cold_ms: cold.ms, learn_ms: learned.ms, learned_in: index.languageLearnedIn(), save_ms: save.ms };
}

export async function underLimit(vault: string, work: string, query: string): Promise<Record<string, unknown>> {
  rmSync(work, { recursive: true, force: true });
  const store = new FsNoteStore(vault);
  const cache = new FileIndexCache(work, vault);
  const loop = blockedLoop();
  const slices = sliceRecorder();
  const yieldToUi = (ms: number) => slices.yieldToUi(ms);
  const built = await buildLearnAndSave(store, cache, yieldToUi);
  const warmIndex = new VaultIndex({ yieldToUi });
  const warm = await timed(() => warmIndex.sync(store, cache));
  const filled = await timed(() => warmIndex.languageSettled());
  const search = await timed(() => warmIndex.search(query, store, { limit: 10 }));
  return {
    // A warm start that had to learn the vault's language again did not come up from the cache.
    ok: warm.value.mode === "cache" && warmIndex.languageLearnedIn() === null && search.value.length > 0,
    notes: built.notes,
    cold_ms: built.cold_ms,
    save_ms: built.save_ms,
    warm_start_ms: warm.ms,
    search_ms: search.ms,
    vault_language: { learned_in: built.learned_in, learn_ms: built.learn_ms, warm_fill_ms: filled.ms, warm_learned_again_in: warmIndex.languageLearnedIn() },
    peak_rss_mb: peakRssMb(),
    heap_limit_mb: 512,
    longest_slice_ms: slices.longest(),
    longest_block_ms: await loop.stop(),
  };
}
