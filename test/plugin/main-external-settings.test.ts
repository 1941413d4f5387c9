// @vitest-environment happy-dom
// data.json changed on disk while the plugin runs (Obsidian Sync, or another program, brought another
// device's settings): Obsidian calls `onExternalSettingsChange` (obsidian.d.ts, @since 1.5.7). The
// settings from the file are used from then on, so the next change made here does not write the old
// ones back over them; the index follows a changed exclusion or word analysis.
import { describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, notices, Vault, type Plugin as StandInPlugin } from "../stubs/obsidian";
import VaultResearchPlugin from "../../src/main";
import { SETTINGS_VERSION } from "../../src/settings";
import { testManifest, usePluginGlobals } from "./plugin-globals";
import { wait } from "./fake-time";

const manifest = testManifest;
usePluginGlobals();

async function started(data: unknown, options: { ready?: boolean } = {}) {
  const vault = new Vault("Garden");
  vault.seed("Gardening/Tomatoes.md", "# Tomatoes\n\nWater tomatoes deeply.\n", 1_700_000_000_000);
  vault.seed("Archive/Old tomatoes.md", "# Old tomatoes\n\nLast year's tomatoes.\n", 1_700_000_000_000);
  const app = new App({ vault, appId: "garden-app" });
  if (options.ready ?? true) app.workspace.triggerLayoutReady();
  const plugin = new VaultResearchPlugin(app as unknown as ObsidianApp, manifest);
  const stored = plugin as unknown as StandInPlugin;
  stored.storedData = data;
  plugin.load();
  await wait();
  /** What Obsidian does when data.json changed on disk: the file now holds `next`, and the plugin is told. */
  const changedOnDisk = async (next: unknown) => {
    stored.storedData = next;
    const done = plugin.onExternalSettingsChange?.();
    await wait();
    await done;
  };
  return { app, vault, plugin, stored, changedOnDisk };
}

describe("settings changed on disk by another device", () => {
  it("are used from then on, and the next change made here keeps them", async () => {
    const { plugin, stored, changedOnDisk } = await started({ version: SETTINGS_VERSION, notes: { traceFolder: "Runs" } });
    await changedOnDisk({ version: SETTINGS_VERSION, notes: { traceFolder: "Runs" }, search: { showScores: true }, external: { enabled: true } });
    expect(plugin.settings.search.showScores).toBe(true);
    expect(plugin.settings.external.enabled).toBe(true);

    plugin.settings.model.timeoutMs = 90_000;
    await plugin.saveSettings();
    expect(stored.storedData).toMatchObject({ search: { showScores: true }, external: { enabled: true }, model: { timeoutMs: 90_000 } });
    plugin.unload();
  });

  it("bring a newly excluded folder's notes out of the index, and a folder no longer excluded back in", async () => {
    const { plugin, changedOnDisk } = await started({ version: SETTINGS_VERSION });
    await wait(2_000);
    expect(plugin.index.paths().sort()).toEqual(["Archive/Old tomatoes.md", "Gardening/Tomatoes.md"]);
    await changedOnDisk({ version: SETTINGS_VERSION, index: { excludedFolders: ["Archive"] } });
    expect(plugin.index.paths()).toEqual(["Gardening/Tomatoes.md"]);
    await changedOnDisk({ version: SETTINGS_VERSION, index: { excludedFolders: [] } });
    expect(plugin.index.paths().sort()).toEqual(["Archive/Old tomatoes.md", "Gardening/Tomatoes.md"]);
    plugin.unload();
  });

  it("rebuild the index when word forms were switched there", async () => {
    const { plugin, changedOnDisk } = await started({ version: SETTINGS_VERSION });
    await wait(2_000);
    const before = plugin.index;
    await changedOnDisk({ version: SETTINGS_VERSION, index: { stemming: false } });
    expect(plugin.index).not.toBe(before);
    expect(plugin.index.status()).toMatchObject({ state: "ready", notes: 2 });
    plugin.unload();
  });

  it("touch neither the index nor the file when nothing changed (the plugin's own write)", async () => {
    const { plugin, stored, changedOnDisk } = await started({ version: SETTINGS_VERSION, index: { stemming: false } });
    await wait(2_000);
    const index = plugin.index;
    const saves = vi.spyOn(stored, "saveData");
    await changedOnDisk(structuredClone(stored.storedData));
    expect(plugin.index).toBe(index);
    expect(saves).not.toHaveBeenCalled();
    expect(notices).toEqual([]);
    plugin.unload();
  });

  it("that cannot be read keep the settings in use, and a copy of the file is kept before anything writes over it", async () => {
    const dir = ".obsidian/plugins/vault-research";
    const { plugin, vault, stored, changedOnDisk } = await started({ version: SETTINGS_VERSION, search: { showScores: true } });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const conflict = '{\n<<<<<<< laptop\n  "search": { "showScores": false }\n}\n';
    await vault.adapter.write(`${dir}/data.json`, conflict);
    vi.spyOn(stored, "loadData").mockRejectedValue(new SyntaxError("Unexpected token '<' in JSON at position 2"));
    await changedOnDisk(null);
    expect(plugin.settings.search.showScores).toBe(true);
    expect(await vault.adapter.read(`${dir}/data.unusable.json`)).toBe(conflict);
    expect(notices.filter((n) => n.message.includes("could not be read") && n.message.includes("data.unusable.json"))).toHaveLength(1);
    plugin.unload();
  });

  it("holding a SearXNG password and a value the plugin cannot use lose the password before a copy is kept, and keep the rest as written", async () => {
    const dir = ".obsidian/plugins/vault-research";
    const { app, plugin, vault, stored, changedOnDisk } = await started({ version: SETTINGS_VERSION });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    vi.spyOn(stored, "saveData").mockImplementation(async (data: unknown) => {
      stored.storedData = structuredClone(data);
      await vault.adapter.write(`${dir}/data.json`, JSON.stringify(data));
    });
    const next = { version: SETTINGS_VERSION, external: { count: "many", searxng: { baseUrl: "https://alice:hunter2-from-laptop@search.example.net" } } };
    await vault.adapter.write(`${dir}/data.json`, JSON.stringify(next));
    await changedOnDisk(next);
    expect(app.secretStorage.getSecret("vault-research-searxng")).toBe("hunter2-from-laptop");
    expect(plugin.settings.external.searxng.baseUrl).toBe("https://alice@search.example.net");
    expect(stored.storedData).toEqual({ version: SETTINGS_VERSION, external: { count: "many", searxng: { baseUrl: "https://alice@search.example.net" } } });
    expect(await vault.adapter.read(`${dir}/data.unusable.json`)).not.toContain("hunter2");
    plugin.unload();
  });

  it("that come before the workspace is ready leave the index to its first build", async () => {
    const { app, plugin, vault, changedOnDisk } = await started({ version: SETTINGS_VERSION }, { ready: false });
    const read = vi.spyOn(vault, "cachedRead");
    await changedOnDisk({ version: SETTINGS_VERSION, index: { excludedFolders: ["Archive"] } });
    expect(read).not.toHaveBeenCalled();
    app.workspace.triggerLayoutReady();
    await wait(2_000);
    expect(plugin.index.paths()).toEqual(["Gardening/Tomatoes.md"]);
    plugin.unload();
  });

  it("after the plugin was disabled change nothing", async () => {
    const { plugin, changedOnDisk } = await started({ version: SETTINGS_VERSION });
    plugin.unload();
    await changedOnDisk({ version: SETTINGS_VERSION, search: { showScores: true } });
    expect(plugin.settings.search.showScores).toBe(false);
  });
});
