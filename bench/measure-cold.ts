// A cold index in a process of its own (nothing else in its heap): ours (list, read, parse, index,
// then the first save) or plain MiniSearch's (list, read, addAll, then its JSON), with the time,
// the longest stretch the event loop was blocked, the heap it keeps and the peak RSS.
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { FileIndexCache } from "../src/cli/file-index-cache";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { bundledNodeWorkers } from "../src/cli/node-workers";
import { readNotes } from "../src/index/read-notes";
import { VaultIndex } from "../src/index/vault-index";
import { blockedLoop, heapUsed, megabytes, peakRssMb, sliceRecorder, timed } from "./bench-tools";
import { CountingCache } from "./counting-cache";
import { buildPlain, savePlain } from "./plain-minisearch";

/** Reads every note once, so neither side pays for a cold OS file cache. */
async function warmFileCache(store: FsNoteStore): Promise<number> {
  const files = await store.list();
  const texts = await readNotes(
    store,
    files.map((f) => f.path),
  );
  return texts.reduce<number>((n, t) => n + (typeof t === "string" ? Buffer.byteLength(t) : 0), 0);
}

export async function coldOurs(vault: string, work: string): Promise<Record<string, unknown>> {
  const store = new FsNoteStore(vault);
  const bytes = await warmFileCache(store);
  const before = heapUsed();
  let loop = blockedLoop();
  let slices = sliceRecorder();
  // Learning in a worker, as the CLI and the plugin do (its heap is not this one's: peak RSS counts it).
  const index = new VaultIndex({ yieldToUi: (ms) => slices.yieldToUi(ms), workers: bundledNodeWorkers() });
  const built = await timed(() => index.sync(store, null));
  const buildBlock = await loop.stop();
  const buildSlice = slices.longest();
  const buildSliceIn = slices.longestEndedIn();
  const heap = heapUsed() - before;
  // The vault's language is learned behind the ready index: its own figures, before the save.
  loop = blockedLoop();
  slices = sliceRecorder();
  const learned = await timed(() => index.languageSettled());
  const learnBlock = await loop.stop();
  const learnSlice = slices.longest();
  const learnSliceIn = slices.longestEndedIn();
  const learnedHeap = heapUsed() - before;
  rmSync(work, { recursive: true, force: true });
  const cache = new CountingCache(new FileIndexCache(work, vault));
  loop = blockedLoop();
  slices = sliceRecorder();
  const saved = await timed(() => index.save(cache));
  const saveBlock = await loop.stop();
  return {
    notes: index.status().notes,
    megabytes: megabytes(bytes),
    ms: built.ms,
    longest_slice_ms: buildSlice,
    longest_slice_in: buildSliceIn,
    longest_block_ms: buildBlock,
    heap_mb: megabytes(heap),
    vault_language: { learned_in: index.languageLearnedIn(), learn_ms: learned.ms, heap_mb_after: megabytes(learnedHeap), longest_slice_ms: learnSlice, longest_slice_in: learnSliceIn, longest_block_ms: learnBlock },
    save: { ms: saved.ms, megabytes: megabytes(cache.bytesWritten()), parts: cache.written.length, longest_slice_ms: slices.longest(), longest_slice_in: slices.longestEndedIn(), longest_block_ms: saveBlock },
    peak_rss_mb: peakRssMb(),
  };
}

export async function coldPlain(vault: string, plainFile: string): Promise<Record<string, unknown>> {
  const store = new FsNoteStore(vault);
  await warmFileCache(store);
  const before = heapUsed();
  let loop = blockedLoop();
  const built = await timed(() => buildPlain(store));
  // Plain MiniSearch never yields: its one slice is its whole build.
  const buildSlice = await loop.stop();
  const heap = heapUsed() - before;
  mkdirSync(path.dirname(plainFile), { recursive: true });
  loop = blockedLoop();
  const saved = await timed(() => savePlain(built.value, plainFile));
  const saveSlice = await loop.stop();
  return {
    ms: built.ms,
    longest_slice_ms: buildSlice,
    heap_mb: megabytes(heap),
    save: { ms: saved.ms, megabytes: megabytes(saved.value), longest_slice_ms: saveSlice },
    peak_rss_mb: peakRssMb(),
  };
}
