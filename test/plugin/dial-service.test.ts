// The dial as the plugin serves it: one VaultSearch per surface (the query log names the surface),
// remade when the index is replaced; remembered positions saved to settings; listeners told when
// the lanes change; a research run's searches not logged one by one but as one line for the run.
import { describe, expect, it, vi } from "vitest";
import { QueryLog } from "../../src/index/query-log/query-log";
import type { QueryLogFile } from "../../src/index/query-log/query-log-file";
import { VaultIndex } from "../../src/index/vault-index";
import { DialService } from "../../src/plugin/dial-service";
import type { ResearchResult } from "../../src/research/types";
import { defaultSettings } from "../../src/settings";
import { MemoryNoteStore } from "../support/memory-note-store";

class MemoryLogFile implements QueryLogFile {
  text = "";
  async append(text: string) {
    this.text += text;
  }
  async size() {
    return this.text.length;
  }
  async rotate() {}
  async read() {
    return { previous: "", current: this.text };
  }
  async clear() {
    this.text = "";
  }
}

async function service(options: { failingLog?: boolean } = {}) {
  const notes = new MemoryNoteStore({ "Garden/Tomatoes.md": "# Tomatoes\n\nWater tomatoes deeply.\n", "Garden/Compost.md": "# Compost\n\nTurn the heap.\n" });
  let index = new VaultIndex();
  await index.sync(notes, null);
  const settings = defaultSettings();
  const file = new MemoryLogFile();
  if (options.failingLog) file.append = async () => Promise.reject(new Error("EACCES: permission denied"));
  const notices: string[] = [];
  const saveSettings = vi.fn(async () => {});
  const log = new QueryLog({ file });
  const dial = new DialService({ index: () => index, notes, clock: { now: () => 1_764_590_000_000, sleep: async () => {} }, settings: () => settings, saveSettings, log, embeddingStatus: () => null, notify: (m) => notices.push(m) });
  const lines = () => file.text.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  return { dial, log, file, settings, saveSettings, lines, notes, notices, replaceIndex: async () => ((index = new VaultIndex()), await index.sync(notes, null)) };
}

describe("DialService", () => {
  it("logs each search under the surface that asked", async () => {
    const { dial, lines } = await service();
    await dial.search({ query: "tomatoes", level: 1, surface: "search-modal" });
    await dial.compare("compost");
    expect(lines().map((l) => l.surface)).toEqual(["search-modal", "comparison-view", "comparison-view", "comparison-view", "comparison-view"]);
  });

  it("says once when the query log cannot be written, and the search still answers", async () => {
    const { dial, notices } = await service({ failingLog: true });
    const first = await dial.search({ query: "tomatoes", level: 1, surface: "search-modal" });
    await dial.search({ query: "compost", level: 1, surface: "search-modal" });
    expect(first.results.map((r) => r.path)).toEqual(["Garden/Tomatoes.md"]);
    expect(first.logId).toBeNull();
    expect(notices).toEqual(["Vault Research: The query log could not be written: EACCES: permission denied. Search still works."]);
  });

  it("says it again when the log fails again after it had been written: a second full disk is not kept quiet", async () => {
    const { dial, file, notices } = await service();
    const append = file.append.bind(file);
    file.append = async () => Promise.reject(new Error("ENOSPC: no space left on device"));
    await dial.search({ query: "tomatoes", level: 1, surface: "search-modal" });
    file.append = append;
    await dial.search({ query: "compost", level: 1, surface: "search-modal" });
    file.append = async () => Promise.reject(new Error("ENOSPC: no space left on device"));
    await dial.search({ query: "beans", level: 1, surface: "search-modal" });
    const full = "Vault Research: The query log could not be written: ENOSPC: no space left on device. Search still works.";
    expect(notices).toEqual([full, full]);
  });

  it("a comparison whose searches cannot go to the log says so too, and still compares", async () => {
    const { dial, notices } = await service({ failingLog: true });
    const comparison = await dial.compare("compost");
    expect(comparison.levels.length).toBe(4);
    expect(notices).toEqual(["Vault Research: The query log could not be written: EACCES: permission denied. Search still works."]);
  });

  it("searches the new index once it is replaced", async () => {
    const { dial, replaceIndex, notes } = await service();
    const before = dial.forSurface("search-modal");
    notes.files.set("Garden/Beans.md", { text: "# Beans\n\nRunner beans climb.\n", mtime: 1_700_000_000_001 });
    await replaceIndex();
    expect(dial.forSurface("search-modal")).not.toBe(before);
    expect((await dial.search({ query: "beans", level: 1, surface: "search-modal" })).results.map((r) => r.path)).toEqual(["Garden/Beans.md"]);
  });

  it("remembers a level per surface, saving only a change", async () => {
    const { dial, settings, saveSettings } = await service();
    await dial.saveLevel("search-modal", 1);
    expect(saveSettings).not.toHaveBeenCalled();
    await dial.saveLevel("search-modal", 4);
    expect(settings.search.searchLevel).toBe(4);
    expect(dial.level("research-panel")).toBe(1);
    await dial.saveShowScores(true);
    expect(dial.showScores()).toBe(true);
    expect(saveSettings).toHaveBeenCalledTimes(2);
  });

  it("tells listeners when the lanes change, until they unsubscribe", async () => {
    const { dial } = await service();
    const heard = vi.fn();
    const stop = dial.onChange(heard);
    dial.configure({ rerankModel: null });
    stop();
    dial.changed();
    expect(heard).toHaveBeenCalledTimes(1);
    expect(dial.readiness().map((r) => r.ready)).toEqual([true, false, false, false]);
  });

  it("a research run's own searches are not logged; the run is, once, at the panel's level", async () => {
    const { dial, settings, lines } = await service();
    settings.search.researchLevel = 3;
    const run = dial.researchRun();
    expect(run.dial.level).toBe(3);
    const answer = await run.dial.search.search({ query: "tomatoes", level: 3 });
    expect(answer.ranLevel).toBe(1);
    expect(lines()).toEqual([]);
    const result = { pack: { evidence: [{ note_path: "Garden/Tomatoes.md" }] }, trace: { events: [{ type: "local_retrieval", data: { ms: 12 } }] } } as unknown as ResearchResult;
    await run.record("How often do tomatoes need water?", result);
    expect(lines()).toMatchObject([{ surface: "research-panel", query: "How often do tomatoes need water?", level: 3, ran_level: 1, results: ["Garden/Tomatoes.md"], latency_ms: 12 }]);
  });

  it("a research run the user stopped is not logged: it may have stopped before any search, and the log is replayed as searches", async () => {
    const { dial, lines } = await service();
    const run = dial.researchRun();
    const stopped = { stop_reason: "cancelled", pack: { evidence: [] }, trace: { events: [] } } as unknown as ResearchResult;
    await run.record("How often do tomatoes need water?", stopped);
    expect(lines()).toEqual([]);
    const finished = { stop_reason: "enough_evidence", pack: { evidence: [] }, trace: { events: [] } } as unknown as ResearchResult;
    await dial.researchRun().record("What goes in compost?", finished);
    expect(lines()).toMatchObject([{ query: "What goes in compost?" }]);
  });

  it("a research run that began before the log was cleared is not written after the clear", async () => {
    const { dial, log, lines } = await service();
    const run = dial.researchRun();
    await run.dial.search.search({ query: "tomatoes", level: 1 });
    // Minutes into the run, the user clears the log.
    await log.clear();
    const result = { pack: { evidence: [{ note_path: "Garden/Tomatoes.md" }] }, trace: { events: [] } } as unknown as ResearchResult;
    await run.record("How often do tomatoes need water?", result);
    expect(lines()).toEqual([]);
    // The next run, begun after the clear, is logged.
    const next = dial.researchRun();
    await next.record("What goes in compost?", result);
    expect(lines()).toMatchObject([{ query: "What goes in compost?" }]);
  });
});
