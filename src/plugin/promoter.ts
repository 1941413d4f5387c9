// Promotion inside Obsidian: the core's promotion steps with the plugin's adapters filled in —
// pages fetched through the plugin's Http (over Node on desktop, requestUrl on mobile: see
// desktop-pages.ts; never fetch()), Defuddle over the window's
// DOMParser, the trace note rewritten in one step by Vault.process, and the new note put into the
// plugin's index at once so the very next search finds it. Every key the plugin holds is handed to
// promotion, so a page that echoes one (it may guess, or have been sent one) never gets it into a note.
import type { MetadataCache, Vault } from "obsidian";
import { ObsidianNoteStore } from "./obsidian-note-store";
import { createDefuddleReader } from "../promote/defuddle-reader";
import type { OutsideVaultRow } from "../evidence/research-pack";
import type { ReadPage } from "../promote/page-extract";
import {
  outsideRowsOfTraceNote,
  promoteFromTraceNote,
  promoteOutsideRow,
  type PromoteDeps,
  type PromotionResult,
  type TraceNoteUpdater,
} from "../promote/promote";
import type { ResearchResult } from "../research/types";
import type { VaultIndex } from "../index/vault-index";
import type { Clock, NoteFileInfo, NoteStore } from "../ports";
import type { PageAccess } from "./desktop-pages";
import type { Settings } from "../settings";
import { keysHeld, type HeldSecrets } from "./keys-held";

/** Rewrites a trace note through `Vault.process` (an edit made meanwhile is not lost), once its real place is checked. */
export function vaultTraceNoteUpdater(vault: Vault): TraceNoteUpdater {
  const store = new ObsidianNoteStore(vault);
  return (path, update) => store.rewrite(path, update);
}

/** What promotion asks of Obsidian's metadata cache: a note's properties, parsed when the vault loaded or changed. */
export type NoteMetadata = Pick<MetadataCache, "getCache">;

/**
 * A note's properties from the metadata cache, when they are the note's as listed: the cache's own
 * record of the date and size it parsed each note at (`fileCache`, not in the API's typings but in
 * every release; without it nothing is vouched for) must be the note's. A note changed a moment ago
 * is parsed a moment later, so until then it is read; so is one the cache has not parsed.
 */
export function metadataProperties(metadata: NoteMetadata): (file: NoteFileInfo) => Record<string, unknown> | null {
  return (file) => {
    const parsedAt = (metadata as { fileCache?: Record<string, { mtime?: unknown; size?: unknown } | undefined> }).fileCache;
    // A plain object: only its own entries are notes.
    const parsed = parsedAt && Object.hasOwn(parsedAt, file.path) ? parsedAt[file.path] : undefined;
    if (!parsed || file.mtime <= 0 || parsed.mtime !== file.mtime || parsed.size !== file.size) return null;
    const cached = metadata.getCache(file.path);
    if (!cached) return null;
    return cached.frontmatter ?? {};
  };
}

export interface PromoterDeps {
  vault: Vault;
  store: NoteStore;
  /** The app's metadata cache: the properties of notes the index leaves out are taken from it rather than read. */
  metadata?: NoteMetadata;
  /** Where a page is fetched from, and how the fetch guard looks names up there (desktop-pages.ts). */
  pages(): Promise<Pick<PageAccess, "http" | "fetchGuard">>;
  clock: Clock;
  /** Secret storage: read at each promotion, so a key added or changed since is scrubbed too. */
  secrets: HeldSecrets;
  /** Getters: the plugin replaces its settings and (on a rebuild) its index. */
  settings(): Settings;
  index(): VaultIndex;
  /** Settles when the index may be changed (a build in progress has finished). */
  indexReady(): Promise<void>;
  /** Told after a note was written and indexed, e.g. to save the index cache. */
  onNoteCreated?(path: string): void;
  /** Defaults to Defuddle over the window's DOMParser. */
  readPage?: ReadPage;
  /** The recordings page fetches are answered from (the workbench's), when they are: the note says its page text is a sample. */
  pagesReplayedFrom?(): string | undefined;
  /** The plugin's session: once it aborts (the plugin unloaded), a promotion under way stops and writes nothing. */
  signal?: AbortSignal;
}

export class Promoter {
  private readonly readPage: ReadPage;

  constructor(private readonly deps: PromoterDeps) {
    this.readPage = deps.readPage ?? createDefuddleReader((html) => new DOMParser().parseFromString(html, "text/html"));
  }

  /** "Add to vault" on a card of a run that just finished. */
  async promoteRow(row: OutsideVaultRow, result: ResearchResult): Promise<PromotionResult> {
    const deps = await this.promoteDeps(result.trace_path !== undefined);
    return this.finish(await promoteOutsideRow({ ...deps, row, trace: result.trace, tracePath: result.trace_path ?? null }));
  }

  /** "Promote a result from this trace": the row named by its key in the trace note's data. */
  async promoteFromTrace(tracePath: string, sourceKey: string): Promise<PromotionResult> {
    return this.finish(await promoteFromTraceNote({ ...(await this.promoteDeps(true)), tracePath, sourceKey }));
  }

  /** The outside rows a trace note lists, each with the note it was saved as, if any. */
  rowsOfTrace(tracePath: string): ReturnType<typeof outsideRowsOfTraceNote> {
    return outsideRowsOfTraceNote(this.deps.store, tracePath);
  }

  private async promoteDeps(hasTraceNote: boolean): Promise<PromoteDeps> {
    // A note indexed while the first build still runs could be overwritten by the build's view.
    await this.deps.indexReady();
    const { store, clock, vault } = this.deps;
    const { http, fetchGuard } = await this.deps.pages();
    const pagesReplayedFrom = this.deps.pagesReplayedFrom?.();
    return {
      store,
      http,
      ...(fetchGuard ? { fetchGuard } : {}),
      clock,
      knownSecrets: await keysHeld(this.deps.secrets, this.deps.settings()),
      settings: this.deps.settings(),
      index: this.deps.index(),
      ...(this.deps.metadata ? { propertiesOf: metadataProperties(this.deps.metadata) } : {}),
      readPage: this.readPage,
      ...(hasTraceNote ? { updateTraceNote: vaultTraceNoteUpdater(vault) } : {}),
      ...(this.deps.signal ? { signal: this.deps.signal } : {}),
      ...(pagesReplayedFrom !== undefined ? { pagesReplayedFrom } : {}),
    };
  }

  private finish(result: PromotionResult): PromotionResult {
    if (result.status === "created") this.deps.onNoteCreated?.(result.notePath);
    return result;
  }
}
