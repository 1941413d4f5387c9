// A research trace note holds web text: it is never searched as the vault's evidence (DESIGN
// invariant 5), in the trace folder (left out by its path) or outside it — after the trace folder
// setting changed, or a trace note moved — where it is known by its marks (trace-marks.ts).
import { beforeEach, describe, expect, it } from "vitest";
import { isResearchTrace, TRACE_BLOCK_OPEN } from "../../src/index/trace-marks";
import { VaultIndex } from "../../src/index/vault-index";
import { ControlledStore } from "../support/controlled-note-store";
import { fakeClock, FAKE_NOW } from "../support/fake-clock";
import { MemoryIndexCache } from "../support/memory-index-cache";

/** A trace note as the plugin writes one (its property, its block), with a web page's words in it. */
const TRACE = ["---", "type: research-trace", "question: What changed in Automerge?", "---", "", "# Research: What changed in Automerge?", "", "> Zeppelin compaction arrives in 3.2, says a web page.", "", TRACE_BLOCK_OPEN, '{"schema":"research_trace.v1"}', "```", ""].join("\n");

let store: ControlledStore;
let index: VaultIndex;

async function found(query: string): Promise<string[]> {
  return (await index.search(query, store)).map((r) => r.path);
}

beforeEach(async () => {
  store = new ControlledStore();
  store.holdReads = false;
  store.write("Notes/Own.md", "# Own\n\nMy own words on the zeppelin museum.\n");
  store.write("Old traces/Run 1.md", TRACE);
  index = new VaultIndex({ clock: fakeClock(), excludedFolders: ["AI Traces/"] });
});

describe("a trace note outside the trace folder", () => {
  it("is not indexed, counted or searched, and the owner's notes are", async () => {
    const report = await index.sync(store, null);
    expect(report.added).toBe(1);
    expect(index.paths()).toEqual(["Notes/Own.md"]);
    expect(await found("zeppelin")).toEqual(["Notes/Own.md"]);
    expect(await found("compaction")).toEqual([]);
  });

  it("a sync from the cache counts nothing new for it, and a note that becomes one leaves the index", async () => {
    const cache = new MemoryIndexCache();
    await index.sync(store, cache);
    await index.save(cache);
    expect(await index.sync(store, cache)).toMatchObject({ mode: "cache", added: 0, updated: 0, removed: 0 });
    // The owner's note turned into a trace (pasted over): it leaves, and the report says so.
    store.write("Notes/Own.md", TRACE, FAKE_NOW + 10);
    expect(await index.sync(store, cache)).toMatchObject({ updated: 0, removed: 1 });
    expect(index.paths()).toEqual([]);
  });

  it("a trace note edited into the owner's note (marks gone) is indexed again", async () => {
    await index.sync(store, null);
    store.write("Old traces/Run 1.md", "# Run 1\n\nNow my own summary of compaction.\n", FAKE_NOW + 20);
    await index.updateFile(store, "Old traces/Run 1.md");
    expect(await found("compaction")).toEqual(["Old traces/Run 1.md"]);
  });

  it("a trace note written or moved in while the index is open is kept out as well", async () => {
    await index.sync(store, null);
    store.write("Elsewhere/Run 2.md", TRACE);
    await index.updateFile(store, "Elsewhere/Run 2.md");
    index.applyText("Elsewhere/Run 3.md", TRACE, FAKE_NOW, TRACE.length);
    expect(index.paths()).toEqual(["Notes/Own.md"]);
  });

  it("a cache saved by a version that indexed it is not used: the index is built again", async () => {
    const cache = new MemoryIndexCache();
    await index.sync(store, cache);
    await index.save(cache);
    const manifest = cache.parts.get("manifest") as { version: number };
    cache.parts.set("manifest", { ...manifest, version: manifest.version - 1 });
    const later = new VaultIndex({ clock: fakeClock(), excludedFolders: ["AI Traces/"] });
    expect((await later.sync(store, cache)).mode).toBe("rebuild");
    expect(later.paths()).toEqual(["Notes/Own.md"]);
  });
});

describe("isResearchTrace", () => {
  it("needs both marks: the property alone, or a quoted block alone, is the owner's note", () => {
    expect(isResearchTrace(TRACE)).toBe(true);
    expect(isResearchTrace(TRACE.replace("\r", "").replace(/\n/g, "\r\n"))).toBe(true);
    expect(isResearchTrace(TRACE.replace("type: research-trace", 'type: "research-trace"'))).toBe(true);
    expect(isResearchTrace(TRACE.replace("type: research-trace", "type: research-notes"))).toBe(false);
    expect(isResearchTrace(TRACE.replace(TRACE_BLOCK_OPEN, "```json"))).toBe(false);
    // The property in the body, not the frontmatter.
    expect(isResearchTrace(`# Note\n\ntype: research-trace\n\n${TRACE_BLOCK_OPEN}\n{}\n\`\`\`\n`)).toBe(false);
  });

  it("knows a trace note saved with a byte order mark, or whose fences a formatter rewrote, as the reader does", () => {
    expect(isResearchTrace(`\uFEFF${TRACE}`)).toBe(true);
    const tildes = TRACE.replace(TRACE_BLOCK_OPEN, "~~~json vault-research-trace").replace(/```\n$/, "~~~\n");
    expect(isResearchTrace(tildes)).toBe(true);
    expect(isResearchTrace(TRACE.replace(TRACE_BLOCK_OPEN, "  ````  json vault-research-trace"))).toBe(true);
    // Words in a sentence are no block.
    expect(isResearchTrace(TRACE.replace(TRACE_BLOCK_OPEN, "see the json vault-research-trace block"))).toBe(false);
  });
});
