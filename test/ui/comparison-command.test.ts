// @vitest-environment happy-dom
// The plugin registers the comparison view and a command that opens it in a new tab, over the
// plugin's own dial: at level 1 with nothing configured, every level runs as Lexical and says why.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, Vault, type PluginManifest } from "../stubs/obsidian";
import VaultResearchPlugin from "../../src/main";
import { COMPARISON_VIEW_TYPE, ComparisonView } from "../../src/ui/comparison-view";
import { FakeIndexedDb } from "../plugin/fake-indexeddb";

const manifest: PluginManifest = { id: "vault-research", name: "Vault Research", author: "test", version: "0.0.0", minAppVersion: "1.11.4", description: "" };

beforeEach(() => vi.stubGlobal("indexedDB", new FakeIndexedDb().asFactory()));
afterEach(() => vi.unstubAllGlobals());

describe("the compare search levels command", () => {
  it("opens the comparison view in a new tab, which runs a query at every level through the plugin's dial", async () => {
    const vault = new Vault("Garden");
    vault.seed("Gardening/Tomatoes.md", "# Tomatoes\n\nWater tomatoes deeply once a week.\n", 1_700_000_000_000);
    const app = new App({ vault, appId: "garden-app" });
    const plugin = new VaultResearchPlugin(app as unknown as ObsidianApp, manifest);
    plugin.load();
    await vi.waitFor(() => expect(app.commands.get("vault-research:compare-search-levels")).toBeDefined());
    app.workspace.triggerLayoutReady();
    await vi.waitFor(() => expect(plugin.index.status().state).toBe("ready"));

    app.commands.get("vault-research:compare-search-levels")!.callback!();
    const view = await vi.waitFor(() => {
      const found = app.workspace.leaves.map((l) => l.view).find((v) => v instanceof ComparisonView);
      if (!found) throw new Error("no comparison view yet");
      return found;
    });
    expect(view.getViewType()).toBe(COMPARISON_VIEW_TYPE);
    await view.compare("tomatoes");
    expect(view.shown?.levels.map((l) => [l.level, l.ranLevel])).toEqual([[1, 1], [2, 1], [3, 1], [4, 1]]);
    // No embedding model: levels 2–4 ran level 1's search, so they have no ranks of their own.
    expect(view.shown?.rows.map((r) => [r.key, r.ranks])).toEqual([["Gardening/Tomatoes.md", [1, null, null, null]]]);
    plugin.unload();
  });
});
