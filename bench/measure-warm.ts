// Start-up from a saved index, each in a fresh process as an app or a CLI run starts: ours (read
// the cache, list the vault, diff) against plain MiniSearch's own cache load (read the JSON,
// loadJSON); then, from that warm start, the save after 1 and after 500 changed notes.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { FileIndexCache } from "../src/cli/file-index-cache";
import { FsNoteStore } from "../src/cli/fs-note-store";
import { describeRebuildReason } from "../src/index/rebuild-reason";
import { VaultIndex } from "../src/index/vault-index";
import { blockedLoop, heapUsed, megabytes, peakRssMb, round, sliceRecorder, timed } from "./bench-tools";
import { CountingCache } from "./counting-cache";
import { loadPlain } from "./plain-minisearch";

/** Ours: a fresh index brought up from the cache in `work`. */
export async function warmOurs(vault: string, work: string): Promise<Record<string, unknown>> {
  const before = heapUsed();
  let loop = blockedLoop();
  let slices = sliceRecorder();
  const index = new VaultIndex({ yieldToUi: (ms) => slices.yieldToUi(ms) });
  const started = await timed(() => index.sync(new FsNoteStore(vault), new FileIndexCache(work, vault)));
  const block = await loop.stop();
  const slice = slices.longest();
  const sliceIn = slices.longestEndedIn();
  const report = started.value;
  if (report.mode !== "cache") throw new Error(`the warm start rebuilt: ${describeRebuildReason(report.rebuildReason)}`);
  const heap = heapUsed() - before;
  // The notes' vault-language vectors are taken back behind the ready index: their own figures.
  loop = blockedLoop();
  slices = sliceRecorder();
  const filled = await timed(() => index.languageSettled());
  const fillBlock = await loop.stop();
  return {
    ms: started.ms,
    notes: index.status().notes,
    heap_mb: megabytes(heap),
    peak_rss_mb: peakRssMb(),
    longest_slice_ms: slice,
    longest_slice_in: sliceIn,
    longest_block_ms: block,
    vault_language: { fill_ms: filled.ms, heap_mb_after: megabytes(heapUsed() - before), longest_slice_ms: slices.longest(), longest_slice_in: slices.longestEndedIn(), longest_block_ms: fillBlock },
  };
}

/** Plain MiniSearch: its saved JSON read and loaded. */
export async function warmPlain(file: string): Promise<Record<string, unknown>> {
  const before = heapUsed();
  const loop = blockedLoop();
  const loaded = await timed(() => loadPlain(file));
  const block = await loop.stop();
  // Plain MiniSearch never yields: its one slice is its whole load.
  return { ms: loaded.ms, notes: loaded.value.documentCount, heap_mb: megabytes(heapUsed() - before), peak_rss_mb: peakRssMb(), longest_slice_ms: block, longest_block_ms: block };
}

/**
 * From a warm start, `changed` notes edited (text already in hand, as the plugin has it), then saved.
 * The saves go to a copy of `work`, dropped after: saved into `work` itself, the edits (under mtimes
 * the files do not have) were read again by the next run's warm start, whose "1 note" save then
 * wrote 500 notes and most of the lane's parts, so runs of one cache measured different things.
 */
export async function changedNoteSaves(vault: string, work: string): Promise<Record<string, unknown>> {
  const copy = mkdtempSync(path.join(os.tmpdir(), "vault-research-changes-"));
  try {
    cpSync(work, copy, { recursive: true });
    return await savesAfterChanges(vault, copy);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

async function savesAfterChanges(vault: string, work: string): Promise<Record<string, unknown>> {
  const store = new FsNoteStore(vault);
  const cache = new CountingCache(new FileIndexCache(work, vault));
  let slices = sliceRecorder();
  const index = new VaultIndex({ yieldToUi: (ms) => slices.yieldToUi(ms) });
  await index.sync(store, cache);
  await index.languageSettled();
  const files = (await store.list()).filter((f) => index.note(f.path));
  const out: Record<string, unknown> = {};
  for (const changed of [1, 500]) {
    for (let i = 0; i < changed; i++) {
      const file = files[(i * 7919 + changed * 13) % files.length];
      index.applyText(file.path, `${await store.read(file.path)}\n\nedited ${changed}-${i}`, file.mtime + 1, file.size + 12);
    }
    cache.written = [];
    slices = sliceRecorder();
    const heapAtSave = heapUsed();
    const collections = gcCounter();
    const loop = blockedLoop();
    const saved = await timed(() => index.save(cache));
    const block = await loop.stop();
    out[`notes_${changed}`] = { ms: saved.ms, kilobytes: round(cache.bytesWritten() / 1e3, 1), parts_written: cache.written.length, longest_slice_ms: slices.longest(), longest_slice_in: slices.longestEndedIn(), longest_block_ms: block, heap_mb_at_save: megabytes(heapAtSave), gc: await collections.stop() };
  }
  return out;
}

/** The garbage collections from now to `stop`: how many of each kind (a load does not change these,
 * only how long they take) and the longest. */
function gcCounter(): { stop: () => Promise<{ minor: number; major: number; longest_ms: number }> } {
  const seen = { minor: 0, major: 0, longest_ms: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) seen.minor++;
      else seen.major++;
      seen.longest_ms = Math.max(seen.longest_ms, round(entry.duration, 1));
    }
  });
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop: async () => {
      // Entries are handed to the observer a turn later.
      await new Promise((resolve) => setImmediate(resolve));
      observer.disconnect();
      return seen;
    },
  };
}
