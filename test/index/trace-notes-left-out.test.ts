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

/** The trace note with its `type` line written another way. */
const withType = (line: string) => TRACE.replace("type: research-trace", line);

/**
 * The same trace note after an editor rewrote its properties: the trace reader parses them as YAML
 * and takes each for a trace, so the index must leave each out too.
 */
const REWRITTEN: [string, string][] = [
  ["a comment after the type", withType("type: research-trace # written by Vault Research")],
  ["the type quoted, with a comment", withType("type: 'research-trace'  # a run")],
  ["the type as a list, as Obsidian writes a list property", withType("type:\n  - research-trace")],
  ["the type in a flow list", withType("type: [note, research-trace]")],
  ["the properties as one flow mapping", TRACE.replace(/---\n[\s\S]*?\n---\n/, "---\n{type: research-trace, question: What changed in Automerge?}\n---\n")],
];

describe("a trace note outside the trace folder whose properties were rewritten", () => {
  it.each(REWRITTEN)("%s: its web text is not searched as the vault's", async (_how, text) => {
    store.write("Old traces/Run 1.md", text);
    await index.sync(store, null);
    expect(index.paths()).toEqual(["Notes/Own.md"]);
    expect(await found("compaction")).toEqual([]);
    // Written or moved in while the index is open, the same.
    store.write("Elsewhere/Run 2.md", text);
    await index.updateFile(store, "Elsewhere/Run 2.md");
    index.applyText("Elsewhere/Run 3.md", text, FAKE_NOW, text.length);
    expect(await found("compaction")).toEqual([]);
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

  it("reads the type property as YAML reads it, and still needs it to say research-trace", () => {
    for (const [how, text] of REWRITTEN) expect(isResearchTrace(text), how).toBe(true);
    expect(isResearchTrace(withType('type: "research-trace" # run'))).toBe(true);
    expect(isResearchTrace(withType("type:\n- research-trace\n- reading"))).toBe(true);
    expect(isResearchTrace(`\uFEFF${withType("type:\n  - research-trace")}`.replace(/\n/g, "\r\n"))).toBe(true);
    expect(isResearchTrace(withType("type:\n  - research-notes"))).toBe(false);
    expect(isResearchTrace(withType("type: [research-notes]"))).toBe(false);
    expect(isResearchTrace(withType("type: research-trace-notes # research-trace"))).toBe(false);
    expect(isResearchTrace(withType("kind: research-trace"))).toBe(false);
    expect(isResearchTrace(withType("# type: research-trace"))).toBe(false);
    expect(isResearchTrace(withType("summary: |\n  type: research-trace"))).toBe(false);
    // Still both marks: the rewritten property with no block is the owner's note.
    expect(isResearchTrace(withType("type:\n  - research-trace").replace(TRACE_BLOCK_OPEN, "```json"))).toBe(false);
  });

  it("properties YAML cannot read still mark the note by a type: research-trace line, as before", () => {
    expect(isResearchTrace(withType("type: research-trace\nsummary: a: b"))).toBe(true);
    expect(isResearchTrace(withType("type: research-notes\nsummary: a: b"))).toBe(false);
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
