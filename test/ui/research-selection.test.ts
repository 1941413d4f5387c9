// @vitest-environment happy-dom
// "Research the selection": the selected text becomes the panel's question; an empty selection
// gets a notice and asks nothing.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, notices, Vault, type PluginManifest } from "../stubs/obsidian";
import VaultResearchPlugin from "../../src/main";
import type { ResearchView } from "../../src/ui/research-view";
import { FakeIndexedDb } from "../plugin/fake-indexeddb";

const manifest: PluginManifest = { id: "vault-research", name: "Vault Research", author: "test", version: "0.0.0", minAppVersion: "1.11.4", description: "" };
const COMMAND = "vault-research:research-selection";

beforeEach(() => {
  vi.stubGlobal("indexedDB", new FakeIndexedDb().asFactory());
  notices.length = 0;
});
afterEach(() => vi.unstubAllGlobals());

async function startPlugin() {
  const app = new App({ vault: new Vault("Sample"), appId: "selection-test" });
  const plugin = new VaultResearchPlugin(app as unknown as ObsidianApp, manifest);
  plugin.load();
  for (let i = 0; i < 200 && !app.commands.has(COMMAND); i++) await new Promise((r) => setTimeout(r, 5));
  const asked: string[] = [];
  const view = { ask: (question: string) => (asked.push(question), Promise.resolve()) } as unknown as ResearchView;
  vi.spyOn(plugin, "openResearchPanel").mockResolvedValue(view);
  const command = app.commands.get(COMMAND)!;
  const runWith = async (selection: string) => {
    command.editorCallback!({ getSelection: () => selection }, {});
    await new Promise((r) => setTimeout(r, 0));
  };
  return { asked, runWith };
}

describe("Research the selection", () => {
  it("asks the panel the selected text, trimmed", async () => {
    const { asked, runWith } = await startPlugin();
    await runWith("  What did we decide about the sync relay?\n");
    expect(asked).toEqual(["What did we decide about the sync relay?"]);
  });

  it("asks nothing and says why when nothing is selected", async () => {
    const { asked, runWith } = await startPlugin();
    await runWith("   ");
    expect(asked).toEqual([]);
    expect(notices.map((n) => n.noticeEl.textContent)).toContain("Select some text to research first.");
  });
});
