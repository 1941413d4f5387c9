// `vault-research promote` over a temporary copy of the sample vault, with pages answered from
// fixtures/pages: the note is written, indexed, found by search and known by its source URL;
// the trace note records it; usage mistakes exit 2; keys never reach the page or the vault.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { FileIndexCache, vaultCacheFolder } from "../../src/cli/file-index-cache";
import { indexCommand } from "../../src/cli/index-command";
import { bundledNodeWorkers } from "../../src/cli/node-workers";
import { promoteCommand, type PromoteArgs } from "../../src/cli/promote-command";
import { COMMANDS } from "../../src/cli/run";
import { terminalOutput } from "../../src/cli/terminal-text";
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { keepTrace, keptTraceFolder } from "../../src/cli/kept-trace";
import { renderTraceNote } from "../../src/notes/trace-note";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { VaultIndex } from "../../src/index/vault-index";
import { defaultSettings } from "../../src/settings";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import type { ReplayLogEntry } from "../../src/websearch/replay";
import { readPromoteResult } from "../support/cli-json";
import { createReplayHttp } from "../../src/websearch/replay";
import { PAGES_DIR, PAGE_ROWS, recordedPages, traceWith, webRow } from "../support/promote-fixtures";
import { replayLogEntries } from "../websearch/helpers";

const ROOT = path.resolve(__dirname, "../..");
const EXAMPLE_VAULT = path.join(ROOT, "examples/vault");
const TRACE = "Research/Traces/2026-03-05 1159 How do local-first notes stay readable.md";
const SECRET = "BSA-test-secret-0123456789abcdef";

const peritext = webRow(
  "brave",
  "https://www.inkandswitch.com/peritext/?utm_source=brave",
  "Peritext: A CRDT for Rich-Text Collaboration",
  "Peritext is a rich-text CRDT that merges formatting the way users expect.",
);

let tmp: string;
let vault: string;
let out: string[];
let err: string[];
let io: { out: (t: string) => void; err: (t: string) => void; env: Record<string, string | undefined>; cwd: string };

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-promote-"));
  vault = path.join(tmp, "vault");
  cpSync(EXAMPLE_VAULT, vault, { recursive: true });
  const trace = traceWith("How do local-first notes stay readable?", [...Object.values(PAGE_ROWS), peritext]);
  mkdirSync(path.join(vault, path.dirname(TRACE)), { recursive: true });
  writeFileSync(path.join(vault, TRACE), renderTraceNote(trace));
  out = [];
  err = [];
  io = {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    env: { BRAVE_SEARCH_API_KEY: SECRET, EXA_API_KEY: SECRET, VAULT_RESEARCH_REPLAY_LOG: path.join(tmp, "requests.jsonl") },
    cwd: tmp,
  };
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

function args(sourceKey: string, extra: Partial<PromoteArgs> = {}): PromoteArgs {
  return { vault: "vault", trace: TRACE, sourceKey, replayDir: PAGES_DIR, settings: defaultSettings(), cacheDir: path.join(tmp, "cache"), ...extra };
}

/** The pages the replay was asked for; none when it wrote no log or an empty one. */
function requestLog(): ReplayLogEntry[] {
  try {
    return replayLogEntries(path.join(tmp, "requests.jsonl"));
  } catch {
    return [];
  }
}

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? allFiles(full) : [full];
  });
}

describe("vault-research promote", () => {
  it("writes the note, which the index then finds by search and by its source URL", async () => {
    const code = await promoteCommand(args(PAGE_ROWS["plain-article"].source_key), io);
    expect(err.join("")).toBe("");
    expect(code).toBe(0);
    const text = out.join("");
    // The recordings are sample responses we wrote: the line says so, as every replay line does.
    expect(text).toContain(`Replay: the page was asked of the recorded sample responses in ${PAGES_DIR}, never of the network.`);
    expect(text).toContain("Saved Research/Sources/Why local-first notes outlive their apps.md");
    expect(text).toContain("extract_status: extracted");

    // A fresh index over the folder, as the next research run would build it.
    const store = new FsNoteStore(vault);
    const index = new VaultIndex({ canonicalizeUrl, excludedFolders: ["Research/Traces"] });
    await index.sync(store, null);
    const notePath = "Research/Sources/Why local-first notes outlive their apps.md";
    expect(index.notesWithSourceUrl("https://fieldnotes.example.org/2025/local-first-notes")).toEqual([notePath]);
    const hits = await index.search("local-first notes outlive their apps", store, { limit: 3 });
    expect(hits.map((h) => h.path)).toContain(notePath);

    const parsed = parseTraceNote(readFileSync(path.join(vault, TRACE), "utf8"));
    if ("error" in parsed) throw new Error(parsed.error.message);
    expect(parsed.trace.promotions?.map((p) => [p.source_key, p.note_path])).toEqual([[PAGE_ROWS["plain-article"].source_key, notePath]]);
  });

  it("dates the promotion by the command's clock (a golden test's), in the trace and the note", async () => {
    const at = Date.UTC(2031, 4, 6, 7, 8, 9);
    const clock = { now: () => at, sleep: () => Promise.resolve() };
    expect(await promoteCommand(args(PAGE_ROWS["plain-article"].source_key), { ...io, clock })).toBe(0);
    const parsed = parseTraceNote(readFileSync(path.join(vault, TRACE), "utf8"));
    if ("error" in parsed) throw new Error(parsed.error.message);
    expect(parsed.trace.promotions?.map((p) => p.at)).toEqual([new Date(at).toISOString()]);
    const note = readFileSync(path.join(vault, "Research/Sources/Why local-first notes outlive their apps.md"), "utf8");
    expect(note).toContain("2031-05-06");
  });

  it("says the page is already in the vault on a second run, writes nothing and exits 0", async () => {
    expect(await promoteCommand(args(PAGE_ROWS["non-latin"].source_key), io)).toBe(0);
    const before = allFiles(vault).length;
    out = [];
    expect(await promoteCommand(args(PAGE_ROWS["non-latin"].source_key), io)).toBe(0);
    expect(out.join("")).toContain("Already in the vault: Research/Sources/ローカルファーストなメモ管理.md");
    expect(allFiles(vault)).toHaveLength(before);
  });

  it("recognises a sample-vault note whose source is the same page and fetches nothing", async () => {
    const code = await promoteCommand(args(peritext.source_key), io);
    expect(code).toBe(0);
    expect(out.join("")).toContain("Already in the vault: Reading/Peritext rich text CRDT.md");
    expect(requestLog()).toEqual([]);
  });

  it("sends no API key to the page and writes none into the vault", async () => {
    expect(await promoteCommand(args(PAGE_ROWS["tracking-and-scripts"].source_key), io)).toBe(0);
    const log = requestLog();
    expect(log).toHaveLength(1);
    expect(log[0].url).toBe(PAGE_ROWS["tracking-and-scripts"].url);
    expect(Object.keys(log[0].headers).map((h) => h.toLowerCase())).not.toContain("x-subscription-token");
    expect(JSON.stringify(log)).not.toContain(SECRET);
    for (const file of allFiles(vault)) expect(readFileSync(file, "utf8"), file).not.toContain(SECRET);
  });

  it("exits 2 for a key the trace does not have, naming the keys it does", async () => {
    expect(await promoteCommand(args("ext:brave:0123456789"), io)).toBe(2);
    expect(err.join("")).toContain(PAGE_ROWS.forbidden.source_key);
  });

  it("exits 2 for something that is not an outside-vault key", async () => {
    expect(await promoteCommand(args("src:0123456789"), io)).toBe(2);
    expect(err.join("")).toContain("not an outside-vault key");
  });

  it("exits 2 when the trace note or the vault is missing, or the note is not a trace", async () => {
    expect(await promoteCommand(args(PAGE_ROWS.pdf.source_key, { trace: "Research/Traces/none" }), io)).toBe(2);
    expect(err.join("")).toContain("Research/Traces/none.md");
    expect(await promoteCommand(args(PAGE_ROWS.pdf.source_key, { trace: "Concepts/CRDTs.md" }), io)).toBe(2);
    expect(await promoteCommand(args(PAGE_ROWS.pdf.source_key, { vault: "nowhere" }), io)).toBe(2);
    expect(await promoteCommand(args(PAGE_ROWS.pdf.source_key, { replayDir: path.join(tmp, "no-recordings") }), io)).toBe(2);
  });

  it("accepts the trace note as a file path inside the vault", async () => {
    const code = await promoteCommand(args(PAGE_ROWS.pdf.source_key, { trace: path.join("vault", TRACE) }), io);
    expect(code).toBe(0);
    expect(out.join("")).toContain("extract_status: pdf_stub");
  });

  it("exits 1 when the note cannot be written", async () => {
    const settings = defaultSettings();
    settings.notes.sourcesFolder = "Open questions.md";
    const code = await promoteCommand(args(PAGE_ROWS["plain-article"].source_key, { settings }), io);
    expect(code).toBe(1);
    expect(err.join("")).toContain("could not be written");
  });

  it("with VAULT_RESEARCH_REPLAY_LOG set and no replay folder, fetches nothing and exits 2, as every other command does", async () => {
    // The stand-in network: without the refusal the page would be asked of it, and the log stay empty.
    const asked: string[] = [];
    const http = { request: (req: { url: string }) => (asked.push(req.url), Promise.reject(new Error("no network in tests"))) };
    const before = allFiles(vault).length;
    expect(await promoteCommand(args(PAGE_ROWS["plain-article"].source_key, { replayDir: undefined }), { ...io, http })).toBe(2);
    expect(err.join("")).toContain("VAULT_RESEARCH_REPLAY_LOG is set, but no replay folder is given");
    expect(asked).toEqual([]);
    expect(allFiles(vault)).toHaveLength(before);
  });

  it("refuses VAULT_RESEARCH_REPLAY set but empty rather than fetch the page live", async () => {
    const asked: string[] = [];
    const http = { request: (req: { url: string }) => (asked.push(req.url), Promise.reject(new Error("no network in tests"))) };
    const env: Record<string, string | undefined> = { ...io.env, VAULT_RESEARCH_REPLAY: "", VAULT_RESEARCH_REPLAY_LOG: undefined };
    expect(await promoteCommand(args(PAGE_ROWS["plain-article"].source_key, { replayDir: undefined }), { ...io, env, http })).toBe(2);
    expect(err.join("")).toContain("VAULT_RESEARCH_REPLAY is set but empty");
    expect(asked).toEqual([]);
  });

  it("prints the result as JSON when asked", async () => {
    expect(await promoteCommand(args(PAGE_ROWS.forbidden.source_key, { json: true }), io)).toBe(0);
    const result = readPromoteResult(out.join(""));
    expect(result).toMatchObject({ schema: "promote_result.v1", status: "created", extract_status: "fallback_snippet:http_403", source_key: PAGE_ROWS.forbidden.source_key });
  });
});

describe("vault-research promote from a kept trace, a second time", () => {
  it("after a try cut short before the kept trace was updated: no second note, and the kept trace records the first", async () => {
    const trace = traceWith("How do local-first notes stay readable?", [PAGE_ROWS["non-latin"]]);
    const file = await keepTrace(keptTraceFolder(path.join(tmp, "cache"), vault), trace);
    const untouched = readFileSync(file, "utf8");
    expect(await promoteCommand(args(PAGE_ROWS["non-latin"].source_key, { trace: file }), io)).toBe(0);
    const notePath = "Research/Sources/ローカルファーストなメモ管理.md";
    // The kept trace as a Ctrl-C between the note's write and the trace's update leaves it.
    writeFileSync(file, untouched);
    const before = allFiles(vault).length;
    out = [];

    expect(await promoteCommand(args(PAGE_ROWS["non-latin"].source_key, { trace: file }), io)).toBe(0);
    expect(out.join("")).toContain(`Already in the vault: ${notePath}`);
    expect(out.join("")).toContain("The kept trace now records it.");
    expect(allFiles(vault)).toHaveLength(before);
    const parsed = parseTraceNote(readFileSync(file, "utf8"));
    if ("error" in parsed) throw new Error(parsed.error.message);
    expect(parsed.trace.promotions?.map((p) => p.note_path)).toEqual([notePath]);
  });

  it("names a run whose kept trace is gone as no longer kept, and says how long traces are kept (it read as a trace note missing from the vault)", async () => {
    const trace = { ...traceWith("How do local-first notes stay readable?", [peritext]), run_id: "20250601-120000-abcdef" };
    const file = await keepTrace(keptTraceFolder(path.join(tmp, "cache"), vault), trace);
    expect(await promoteCommand(args(peritext.source_key, { trace: trace.run_id }), io)).toBe(0);
    rmSync(file);
    err = [];
    expect(await promoteCommand(args(peritext.source_key, { trace: trace.run_id }), io)).toBe(2);
    expect(err.join("")).toBe(
      `vault-research promote: the trace of run 20250601-120000-abcdef is not kept in ${path.dirname(file)} (any more): each vault's newest 500 traces are kept, and those of the last 7 days up to 2,000; older ones are removed as new ones are kept. Run the research again to promote from it (with --trace, its trace note stays in the vault).\n`,
    );
  });

  it("says nothing of the replay when no page was asked for", async () => {
    expect(await promoteCommand(args(peritext.source_key), io)).toBe(0);
    expect(out.join("")).not.toContain("Replay:");
  });
});

describe("vault-research promote in a vault renamed or moved", () => {
  it("takes over the vault's old cache folder first: its kept traces are found, its vectors not orphaned by a new folder", async () => {
    const cacheDir = path.join(tmp, "cache");
    const io2 = { ...io, env: {} };
    expect(await indexCommand(parseArgs(["--vault", vault, "--cache-dir", cacheDir, "--quiet"], COMMANDS.index.flags), terminalOutput(io2, []), bundledNodeWorkers())).toBe(0);
    writeFileSync(path.join(vaultCacheFolder(cacheDir, vault), "vectors.bin"), "hours of embedding");
    const trace = { ...traceWith("How do local-first notes stay readable?", [peritext]), run_id: "20250601-120000-abcdef" };
    await keepTrace(keptTraceFolder(cacheDir, vault), trace);
    const moved = path.join(tmp, "vault (moved)");
    renameSync(vault, moved);

    expect(await promoteCommand(args(peritext.source_key, { vault: moved, trace: trace.run_id }), io)).toBe(0);
    expect(err.join("")).toContain(`this vault's cache was found under its old path ${vault}`);
    expect(readFileSync(path.join(vaultCacheFolder(cacheDir, moved), "vectors.bin"), "utf8")).toBe("hours of embedding");
    expect(existsSync(vaultCacheFolder(cacheDir, vault))).toBe(false);
  }, 60_000);

  it("promoting from a trace note of the moved vault does not start a new cache folder beside the old one", async () => {
    const cacheDir = path.join(tmp, "cache");
    expect(await indexCommand(parseArgs(["--vault", vault, "--cache-dir", cacheDir, "--quiet"], COMMANDS.index.flags), terminalOutput({ ...io, env: {} }, []), bundledNodeWorkers())).toBe(0);
    writeFileSync(path.join(vaultCacheFolder(cacheDir, vault), "vectors.bin"), "hours of embedding");
    const moved = path.join(tmp, "vault (moved)");
    renameSync(vault, moved);

    expect(await promoteCommand(args(PAGE_ROWS["plain-article"].source_key, { vault: moved }), io)).toBe(0);
    // It saved its index (a note was written) into the folder it took over, vectors and all.
    expect(readFileSync(path.join(vaultCacheFolder(cacheDir, moved), "vectors.bin"), "utf8")).toBe("hours of embedding");
    expect(existsSync(vaultCacheFolder(cacheDir, vault))).toBe(false);
  }, 60_000);
});

// The promotion's note is in the vault either way; what a failed save costs is the next run's
// reading. It said "the next run will index again" after an update too, where only this run's
// changes are read again (the cache stays as it was: its manifest is written last).
describe("vault-research promote when the index cache could not be saved", () => {
  afterEach(() => vi.restoreAllMocks());

  it("says the cache stays as it was after an update, in the index command's words", async () => {
    // A first promotion writes its note and saves the index.
    expect(await promoteCommand(args(PAGE_ROWS.pdf.source_key), io)).toBe(0);
    expect(existsSync(path.join(vaultCacheFolder(path.join(tmp, "cache"), vault), "manifest.v8"))).toBe(true);
    err.length = 0;
    vi.spyOn(FileIndexCache.prototype, "write").mockRejectedValue(new Error("ENOSPC: no space left on device, write"));
    expect(await promoteCommand(args(PAGE_ROWS["plain-article"].source_key), io)).toBe(0);
    expect(err.join("")).toBe("warning: the index cache could not be written (ENOSPC: no space left on device, write); it stays as it was, and the next run will read this run's changes again.\n");
  });

  it("says the next run indexes the vault again when this run built it", async () => {
    vi.spyOn(FileIndexCache.prototype, "write").mockRejectedValue(new Error("ENOSPC: no space left on device, write"));
    expect(await promoteCommand(args(PAGE_ROWS["plain-article"].source_key), io)).toBe(0);
    expect(err.join("")).toBe("warning: the index cache could not be written (ENOSPC: no space left on device, write); the next run will index the vault again.\n");
  });
});

describe("vault-research promote of a result from a replayed run", () => {
  const NOTE = "Research/Sources/Why local-first notes outlive their apps.md";
  beforeEach(() => {
    const trace = { ...traceWith("How do local-first notes stay readable?", [PAGE_ROWS["plain-article"]]), replayed_from: "fixtures/replay/brave-demo" };
    writeFileSync(path.join(vault, TRACE), renderTraceNote(trace));
  });

  it("writes a note that says, in its properties and its text, that the result and the replayed page are recorded samples", async () => {
    expect(await promoteCommand(args(PAGE_ROWS["plain-article"].source_key), io)).toBe(0);
    const note = readFileSync(path.join(vault, NOTE), "utf8");
    expect(note).toContain("\nsample: true\nreplayed_from: fixtures/replay/brave-demo\npage_replayed_from: ");
    expect(note).toContain("> [!note] Recorded sample response, not a live search");
    expect(note).toContain("not fetched from the site: it is a sample page too.");
    expect(out.join("")).toContain("The note says the result is a recorded sample response, not a live search, and its page text is a recorded sample page.");
  });

  it("says what is sample and what is live when the page is fetched from its site", async () => {
    const network = createReplayHttp(recordedPages());
    const env = { BRAVE_SEARCH_API_KEY: SECRET };
    expect(await promoteCommand(args(PAGE_ROWS["plain-article"].source_key, { replayDir: undefined }), { ...io, env, http: network })).toBe(0);
    const note = readFileSync(path.join(vault, NOTE), "utf8");
    expect(note).toContain("\nsample: true\nreplayed_from: fixtures/replay/brave-demo\n");
    expect(note).not.toContain("page_replayed_from");
    expect(note).toContain("a sample response replayed from recordings in fixtures/replay/brave-demo; nothing was searched on the web.");
    expect(note).toContain("were fetched live from the page's address on");
    expect(out.join("")).toContain("The note says the result is a recorded sample response, not a live search, and its page text was fetched live.");
  });
});
