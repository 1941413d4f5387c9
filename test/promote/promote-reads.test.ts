// How much of the vault a promotion reads to learn whether the page is a note already. The index
// answers for the notes it holds; the ones it leaves out (an excluded archive of thousands of notes)
// must be read — once, and again only when one of them changed, never all of them at every promotion.
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../src/cli/dom-parser";
import { promoteOutsideRow, type PromoteRowInput } from "../../src/promote/promote";
import { renderTraceNote } from "../../src/notes/trace-note";
import { VaultIndex } from "../../src/index/vault-index";
import { defaultSettings } from "../../src/settings";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { createReplayHttp } from "../../src/websearch/replay";
import type { OutsideVaultRow } from "../../src/evidence/research-pack";
import { fixedClock, MemoryNoteStore, PAGE_ROWS, recordedPages, traceWith } from "../support/promote-fixtures";

const TRACE_PATH = "Research/Traces/2026-03-05 1159 Sync.md";
const ARCHIVE_NOTES = 2_000;
const ROWS = [PAGE_ROWS["plain-article"], PAGE_ROWS.forbidden, PAGE_ROWS["tracking-and-scripts"]];

/** A store that counts the reads of each note. */
class CountingStore extends MemoryNoteStore {
  readonly reads = new Map<string, number>();
  override async read(p: string): Promise<string> {
    this.reads.set(p, (this.reads.get(p) ?? 0) + 1);
    return super.read(p);
  }
  archiveReads(): number {
    let n = 0;
    for (const [p, count] of this.reads) if (p.startsWith("Archive/")) n += count;
    this.reads.clear();
    return n;
  }
}

async function setUp() {
  const trace = traceWith("How do sync engines compare?", ROWS);
  const archive: Record<string, string> = {};
  for (let i = 0; i < ARCHIVE_NOTES; i++) archive[`Archive/${i}.md`] = `---\nsource: https://old.example.org/${i}\n---\nArchived ${i}.\n`;
  const store = new CountingStore({ [TRACE_PATH]: renderTraceNote(trace), ...archive });
  const index = new VaultIndex({ canonicalizeUrl, excludedFolders: ["Research/Traces", "Archive"] });
  await index.sync(store, null);
  store.reads.clear();
  const http = createReplayHttp(recordedPages(), { sourceName: "fixtures/pages" });
  const base: Omit<PromoteRowInput, "row"> = { store, http, clock: fixedClock, settings: defaultSettings(), readPage: nodePageReader, updateTraceNote: store.update, trace, tracePath: TRACE_PATH, index };
  const promote = (row: OutsideVaultRow) => promoteOutsideRow({ ...base, row });
  return { store, promote };
}

describe("the notes the index leaves out, at each promotion", () => {
  it("are read at the first promotion, and not again at the next while none of them changed", async () => {
    const { store, promote } = await setUp();
    expect(await promote(ROWS[0])).toMatchObject({ status: "created" });
    expect(store.archiveReads()).toBe(ARCHIVE_NOTES);
    expect(await promote(ROWS[1])).toMatchObject({ status: "created" });
    expect(store.archiveReads()).toBe(0);
  });

  it("are read again one by one as they change, and a note that now has the page as its source is found", async () => {
    const { store, promote } = await setUp();
    await promote(ROWS[0]);
    store.archiveReads();
    // The user points an archived note at the third page, and clips a fourth note into the archive.
    store.files.set("Archive/7.md", { text: `---\nsource: ${ROWS[2].url}\n---\nArchived 7, now about sync engines.\n`, mtime: 1_800_000_000_000 });
    store.files.set("Archive/new.md", { text: "---\nsource: https://old.example.org/new\n---\nNew.\n", mtime: 1_800_000_000_000 });
    expect(await promote(ROWS[2])).toMatchObject({ status: "already_in_vault", notePath: "Archive/7.md" });
    expect(store.archiveReads()).toBe(2);
  });

  it("are not named once gone, nor kept in memory for a note that left", async () => {
    const { store, promote } = await setUp();
    store.files.set("Archive/7.md", { text: `---\nsource: ${ROWS[2].url}\n---\nClipped.\n`, mtime: 1_800_000_000_000 });
    expect(await promote(ROWS[2])).toMatchObject({ status: "already_in_vault", notePath: "Archive/7.md" });
    store.files.delete("Archive/7.md");
    expect(await promote(ROWS[2])).toMatchObject({ status: "created" });
  });
});
