// @vitest-environment happy-dom
// Promotion inside the plugin, with the real wiring (src/main.ts, src/plugin/promoter.ts) over the
// stand-in `obsidian` module: the "Promote a result from this trace" command — when it is offered,
// its picker, the notice — and what a promotion leaves behind: a note the index already knows, a
// trace note that says `· promoted`, and page requests that went through requestUrl, never fetch().
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, notices, openModals, Platform, setRequestUrlHandler, Vault, type PluginManifest, type SuggestModal, type TFile } from "../stubs/obsidian";
import VaultResearchPlugin from "../../src/main";
import { outsideVaultLabel } from "../../src/evidence/labels";
import type { TraceOutsideRow } from "../../src/promote/promote";
import type { ResearchResult } from "../../src/research/types";
import { renderTraceNote } from "../../src/notes/trace-note";
import { parseNote } from "../../src/index/markdown";
import { PromoteResultModal } from "../../src/ui/promote-modal";
import { createReplayHttp, parseReplayFile, type RecordedExchange } from "../../src/websearch/replay";
import { traceWith, webRow } from "../support/promote-fixtures";
import { FakeIndexedDb } from "../plugin/fake-indexeddb";

const manifest: PluginManifest = { id: "vault-research", name: "Vault Research", author: "test", version: "0.0.0", minAppVersion: "1.11.4", description: "" };
const PAGES_DIR = path.resolve(__dirname, "../../fixtures/replay/brave-demo-pages");
const QUESTION = "What changed in the latest Automerge release?";
const TRACE = "Research/Traces/2026-01-01 0900 What changed in the latest Automerge release.md";
const EMPTY_TRACE = "Research/Traces/2026-01-01 0800 Vault only.md";
const BROKEN_TRACE = "Research/Traces/2026-01-01 0700 Broken.md";
const COMMAND = "vault-research:promote-from-trace";

const blog = webRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3.0: lower memory, one API", "Automerge 3 keeps the document compressed.");
const releases = webRow("brave", "https://github.com/automerge/automerge/releases", "Releases · automerge/automerge", "3.1.0 adds whole-string splices.");

function recordedPages(): RecordedExchange[] {
  return readdirSync(PAGES_DIR)
    .filter((f) => f.endsWith(".json"))
    .flatMap((f) => {
      const parsed = parseReplayFile(JSON.parse(readFileSync(path.join(PAGES_DIR, f), "utf8")));
      if (!parsed.ok) throw new Error(parsed.message);
      return parsed.exchanges;
    });
}

let requested: string[];
let fetchSpy: ReturnType<typeof vi.fn>;

beforeEach(() => {
  vi.stubGlobal("indexedDB", new FakeIndexedDb().asFactory());
  fetchSpy = vi.fn(() => Promise.reject(new Error("fetch() must not be used by the plugin")));
  vi.stubGlobal("fetch", fetchSpy);
  requested = [];
  const replay = createReplayHttp(recordedPages());
  setRequestUrlHandler(async (req) => {
    requested.push(req.url);
    const response = await replay.request({ method: (req.method ?? "GET") as "GET", url: req.url });
    return { status: response.status, headers: response.headers, body: response.text };
  });
  notices.length = 0;
  openModals.length = 0;
  // Pages through requestUrl, as on mobile: on desktop they go over Node (test/plugin/desktop-pages.test.ts).
  Platform.isDesktopApp = false;
});

afterEach(() => {
  Platform.isDesktopApp = true;
  for (const modal of [...openModals]) modal.close();
  setRequestUrlHandler(null);
  vi.unstubAllGlobals();
  document.body.empty();
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error(`Timed out waiting for ${what}`);
}

async function startPlugin() {
  const vault = new Vault("Sample");
  vault.seed("Libraries/Automerge.md", "# Automerge\n\nAutomerge is a CRDT library for local-first apps.\n");
  vault.seed("Inbox/Plain note.md", "# Plain note\n\nNothing to do with traces.\n");
  vault.seed(TRACE, renderTraceNote(traceWith(QUESTION, [blog, releases])));
  vault.seed(EMPTY_TRACE, renderTraceNote(traceWith("Vault only", [])));
  vault.seed(BROKEN_TRACE, renderTraceNote(traceWith("Broken", [blog])).replace('"schema"', '"schema'));
  const app = new App({ vault, appId: "promote-test" });
  // Obsidian's metadata cache, as the app fills it: the frontmatter of the file.
  app.metadataCache.getFileCache = ((file: TFile) => ({ frontmatter: parseNote(file.path, readNow(vault, file.path)).frontmatter })) as never;
  let active: TFile | null = null;
  app.workspace.getActiveFile = () => active;
  const plugin = new VaultResearchPlugin(app as unknown as ObsidianApp, manifest);
  plugin.load();
  await until(() => app.commands.has(COMMAND), "the plugin to load");
  app.workspace.triggerLayoutReady();
  await until(() => plugin.index.status().state === "ready", "the index");
  const command = app.commands.get(COMMAND)!;
  return {
    app,
    vault,
    plugin,
    open: (p: string | null) => void (active = p === null ? null : vault.getFileByPath(p)),
    offered: () => command.checkCallback!(true) === true,
    run: () => command.checkCallback!(false),
  };
}

/** A file's text at once (the stand-in vault's own map): the metadata cache must answer synchronously. */
function readNow(vault: Vault, p: string): string {
  return (vault as unknown as { contents: Map<string, string> }).contents.get(p) ?? "";
}

const sourcesIn = (vault: Vault) => vault.getMarkdownFiles().filter((f) => f.path.startsWith("Research/Sources/")).map((f) => f.path);
/** The open picker, seen through the stand-in's SuggestModal (which shows what it rendered). */
const modal = () => openModals.find((m) => m instanceof PromoteResultModal) as SuggestModal<TraceOutsideRow> | undefined;
const noticeTexts = () => notices.map((n) => n.noticeEl.textContent ?? "");

describe("Promote a result from this trace", () => {
  it("is offered only while a trace note with outside-vault rows is the active file", async () => {
    const { open, offered } = await startPlugin();
    open(null);
    expect(offered()).toBe(false);
    open("Inbox/Plain note.md");
    expect(offered()).toBe(false);
    open(EMPTY_TRACE);
    expect(offered()).toBe(false);
    open(TRACE);
    expect(offered()).toBe(true);
  });

  it("lists the rows, saves the chosen page as a note the index knows at once, and the trace note says promoted", async () => {
    const { vault, plugin, open, run } = await startPlugin();
    open(TRACE);
    run();
    await until(() => modal() !== undefined, "the picker");
    const picker = modal()!;
    await until(() => picker.shownSuggestions.length > 0, "the rows");
    const items = [...picker.resultContainerEl.querySelectorAll(".suggestion-item")];
    expect(items.map((i) => i.querySelector(".vault-research-promote-suggestion-title")?.textContent)).toEqual([blog.title, releases.title]);
    expect(items.map((i) => i.querySelector(".vault-research-promote-suggestion-meta")?.textContent)).toEqual([
      `automerge.org${outsideVaultLabel("brave", "ephemeral")}`,
      `github.com${outsideVaultLabel("brave", "ephemeral")}`,
    ]);
    expect(picker.resultContainerEl.querySelectorAll(".vault-research-promoted-marker")).toHaveLength(0);

    picker.inputEl.value = "automerge.org";
    await picker.updateSuggestions();
    expect(picker.shownSuggestions.map((s) => s.row.source_key)).toEqual([blog.source_key]);
    picker.selectSuggestion(picker.shownSuggestions[0], new MouseEvent("click"));
    await until(() => noticeTexts().some((t) => t.startsWith("Saved as")), "the notice");

    const [saved] = sourcesIn(vault);
    expect(sourcesIn(vault)).toEqual([saved]);
    // The name and path are isolated (U+2068 … U+2069): a right-to-left name keeps its brackets in place.
    expect(noticeTexts()).toContain(`Saved as [[\u2068${path.basename(saved, ".md")}\u2069]] (\u2068${saved}\u2069).`);
    // Indexed by the promotion itself, before the vault's create event has gone through the update queue.
    expect(plugin.index.note(saved)).toBeTruthy();
    expect((await plugin.index.search("compressed columnar form", plugin.store)).map((r) => r.path)).toContain(saved);
    expect(plugin.index.notesWithSourceUrl("https://automerge.org/blog/automerge-3")).toEqual([saved]);

    const traceNote = readNow(vault, TRACE);
    expect(traceNote).toContain(`**${outsideVaultLabel("brave", "promoted")}** · \`${blog.source_key}\` · saved as [[${saved.replace(/\.md$/, "")}|`);
    expect(traceNote).toContain(`**${outsideVaultLabel("brave", "ephemeral")}** · \`${releases.source_key}\``);

    expect(requested).toEqual(["https://automerge.org/blog/automerge-3/"]);
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("marks a row saved before, and choosing it again points at the note instead of writing another", async () => {
    const { vault, open, run } = await startPlugin();
    open(TRACE);
    run();
    await until(() => (modal()?.shownSuggestions.length ?? 0) > 0, "the picker");
    modal()!.selectSuggestion(modal()!.shownSuggestions[0], new MouseEvent("click"));
    await until(() => noticeTexts().some((t) => t.startsWith("Saved as")), "the first promotion");
    const [saved] = sourcesIn(vault);

    run();
    await until(() => (modal()?.shownSuggestions.length ?? 0) > 0, "the picker again");
    const first = modal()!.resultContainerEl.querySelector(".suggestion-item")!;
    expect(first.hasClass("is-promoted")).toBe(true);
    expect(first.querySelector(".vault-research-promoted-marker")?.textContent).toBe(`Already saved as [[${path.basename(saved, ".md")}]]`);
    // Only the name reads in its own direction, so the brackets stay around an Arabic or Hebrew one.
    expect(first.querySelector(".vault-research-promoted-marker span[dir='auto']")?.textContent).toBe(path.basename(saved, ".md"));
    expect(first.querySelector(".vault-research-badge")?.textContent).toBe(outsideVaultLabel("brave", "promoted"));
    expect(modal()!.resultContainerEl.querySelectorAll(".vault-research-promoted-marker")).toHaveLength(1);

    modal()!.selectSuggestion(modal()!.shownSuggestions[0], new MouseEvent("click"));
    await until(() => noticeTexts().some((t) => t.startsWith("Already in your vault")), "the second notice");
    expect(noticeTexts()).toContain(`Already in your vault: [[\u2068${path.basename(saved, ".md")}\u2069]]. No new note was written.`);
    expect(sourcesIn(vault)).toEqual([saved]);
    expect(requested).toEqual(["https://automerge.org/blog/automerge-3/"]);
  });

  it("says so in a notice when the trace note's data cannot be read", async () => {
    const { open, offered, run } = await startPlugin();
    open(BROKEN_TRACE);
    expect(offered()).toBe(true);
    run();
    await until(() => noticeTexts().length > 0, "the notice");
    expect(noticeTexts()[0]).toMatch(/^Cannot promote from this note: .*trace block/);
    expect(modal()).toBeUndefined();
  });
});

describe("Add to vault through the plugin's promoter", () => {
  it("promotes a row of a finished run, records it in the run's trace note and indexes the note", async () => {
    const { vault, plugin } = await startPlugin();
    const trace = traceWith(QUESTION, [blog, releases]);
    const result: ResearchResult = { pack: trace.pack, stop_reason: "enough_evidence", trace, trace_path: TRACE };
    const outcome = await plugin.promoter.promoteRow(releases, result);
    expect(outcome).toMatchObject({ status: "created", extractStatus: { kind: "extracted" }, traceUpdated: true });
    const notePath = outcome.status === "created" ? outcome.notePath : "";
    expect(notePath).toMatch(/^Research\/Sources\/.+\.md$/);
    expect(plugin.index.note(notePath)).toBeTruthy();
    expect(readNow(vault, TRACE)).toContain(`**${outsideVaultLabel("brave", "promoted")}** · \`${releases.source_key}\``);

    const again = await plugin.promoter.promoteRow(releases, result);
    expect(again).toMatchObject({ status: "already_in_vault", notePath });
    expect(requested).toEqual(["https://github.com/automerge/automerge/releases"]);
    expect(fetchSpy).not.toHaveBeenCalled();
  });
});
