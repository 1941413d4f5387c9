// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
// The same module the "obsidian" alias resolves to, imported by path for its stand-in-only helpers.
import { App, notices, openModals, Vault, type Plugin as StandInPlugin, type PluginManifest, type TFile } from "../stubs/obsidian";
import VaultResearchPlugin from "../../src/main";
import { ObsidianNoteStore } from "../../src/plugin/obsidian-note-store";
import { SETTINGS_VERSION } from "../../src/settings";
import { FakeIndexedDb } from "./fake-indexeddb";
import { wait } from "./fake-time";
import { digestsAnsweredAtOnce } from "./plugin-globals";

const manifest: PluginManifest = {
  id: "vault-research",
  name: "Vault Research",
  author: "test",
  version: "0.0.0",
  minAppVersion: "1.11.4",
  description: "",
};

const NOTES: Record<string, string> = {
  "Gardening/Tomatoes.md": "# Tomatoes\n\nWater tomatoes deeply twice a week.\n",
  "Gardening/Compost.md": "# Compost\n\nTurn the compost heap every fortnight.\n",
  "Travel/Lisbon.md": "---\ntags: [travel]\n---\n# Lisbon\n\nTake tram 28 early in the morning.\n",
  "Research/Traces/run-1.md": "# Trace\n\nTomatoes were mentioned in a research run.\n",
};

let idb: FakeIndexedDb;

beforeEach(() => {
  vi.useFakeTimers();
  digestsAnsweredAtOnce();
  idb = new FakeIndexedDb();
  vi.stubGlobal("indexedDB", idb.asFactory());
  notices.length = 0;
  openModals.length = 0;
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

async function startPlugin(options: { files?: Record<string, string>; data?: unknown; vault?: Vault; ready?: boolean } = {}) {
  const vault = options.vault ?? new Vault("Garden");
  if (!options.vault) for (const [path, text] of Object.entries(options.files ?? NOTES)) vault.seed(path, text, 1_700_000_000_000);
  const app = new App({ vault, appId: "garden-app" });
  const plugin = new VaultResearchPlugin(app as unknown as ObsidianApp, manifest);
  const data = plugin as unknown as StandInPlugin;
  data.storedData = options.data ?? null;
  plugin.load();
  await wait();
  if (options.ready ?? true) {
    app.workspace.triggerLayoutReady();
    await wait();
  }
  const statusText = () => app.statusBarEl?.querySelector(".vault-research-status")?.textContent ?? "";
  const store = new ObsidianNoteStore(vault as unknown as ObsidianApp["vault"]);
  const search = async (q: string) => (await plugin.index.search(q, store)).map((r) => r.path);
  return { app, vault, plugin, data, statusText, search };
}

describe("the plugin", () => {
  it("waits for the layout before indexing, then indexes every note outside the trace folder", async () => {
    const read = vi.spyOn(Vault.prototype, "cachedRead");
    const { app, plugin, statusText, search } = await startPlugin({ ready: false });
    expect(read).not.toHaveBeenCalled();
    expect(statusText()).toBe("Index not built yet");

    app.workspace.triggerLayoutReady();
    await wait();
    expect(plugin.index.status().notes).toBe(3);
    expect(statusText()).toBe("3 notes indexed");
    expect(await search("tomatoes")).toEqual(["Gardening/Tomatoes.md"]);
  });

  it("brings created, modified, renamed and deleted notes into the index after a quiet moment", async () => {
    const { vault, search } = await startPlugin();
    await vault.create("Gardening/Zucchini.md", "# Zucchini\n\nZucchini glut recipes.");
    const lisbon = vault.getFileByPath("Travel/Lisbon.md") as TFile;
    await vault.modify(lisbon, "# Lisbon\n\nThe funicular to Bairro Alto.");
    expect(await search("zucchini")).toEqual([]); // not yet: edits are batched
    await wait(1500);
    expect(await search("zucchini")).toEqual(["Gardening/Zucchini.md"]);
    expect(await search("funicular")).toEqual(["Travel/Lisbon.md"]);
    expect(await search("tram")).toEqual([]);

    await vault.rename(vault.getFileByPath("Gardening/Compost.md")!, "Gardening/Compost heap.md");
    await vault.delete(vault.getFileByPath("Gardening/Tomatoes.md")!);
    await wait(1500);
    expect(await search("compost")).toEqual(["Gardening/Compost heap.md"]);
    expect(await search("tomatoes")).toEqual([]);
  });

  it("follows a folder rename to every note inside it", async () => {
    const { vault, plugin } = await startPlugin();
    await vault.rename(vault.getFolderByPath("Gardening")!, "Garden");
    await wait(1500);
    expect(plugin.index.paths().sort()).toEqual(["Garden/Compost.md", "Garden/Tomatoes.md", "Travel/Lisbon.md"]);
  });

  it("ignores files that are not notes, and notes written into the trace folder", async () => {
    const { vault, plugin } = await startPlugin();
    await vault.create("Gardening/photo.png", "png");
    await vault.create("Research/Traces/run-2.md", "# Another trace");
    await wait(1500);
    expect(plugin.index.status().notes).toBe(3);
  });

  it("drops notes in newly excluded folders and reads notes whose folder is no longer excluded", async () => {
    const { plugin } = await startPlugin();
    plugin.settings.index.excludedFolders = ["Gardening"];
    await plugin.applyIndexSettings({ rebuild: false });
    expect(plugin.index.paths()).toEqual(["Travel/Lisbon.md"]);

    plugin.settings.index.excludedFolders = [];
    const done = plugin.applyIndexSettings({ rebuild: false });
    await wait();
    await done;
    expect(plugin.index.paths().sort()).toEqual(["Gardening/Compost.md", "Gardening/Tomatoes.md", "Travel/Lisbon.md"]);
  });

  it("builds a fresh index when word forms are switched, even while the first build is running", async () => {
    const { app, plugin } = await startPlugin({ ready: false });
    const before = plugin.index;
    app.workspace.triggerLayoutReady(); // the start-up build is now under way
    plugin.settings.index.stemming = false;
    const done = plugin.applyIndexSettings({ rebuild: true });
    await wait();
    await done;
    expect(plugin.index).not.toBe(before);
    expect(plugin.index.status()).toMatchObject({ state: "ready", notes: 3 });
    expect(notices.at(-1)?.message).toMatch(/^Index rebuilt: 3 notes/);
  });

  it("uses defaults and says so when settings are broken, without overwriting the stored file", async () => {
    const stored = { version: 1, index: { stemming: "yes please", excludedFolders: ["Travel"] } };
    const { plugin, data } = await startPlugin({ data: stored });
    expect(plugin.settings.index.stemming).toBe(true);
    expect(plugin.settings.index.excludedFolders).toEqual(["Travel"]);
    expect(notices.map((n) => n.message).join("\n")).toMatch(/index\.stemming/);
    expect(data.storedData).toEqual(stored);
    expect(plugin.index.paths()).not.toContain("Travel/Lisbon.md");
  });

  it("stores settings from before versioning under the current version", async () => {
    const { data } = await startPlugin({ data: { index: { excludedFolders: ["Archive"] } } });
    expect(notices).toHaveLength(0);
    expect(data.storedData).toMatchObject({ version: SETTINGS_VERSION, index: { excludedFolders: ["Archive"] } });
  });

  it("moves a SearXNG password an earlier version saved in the address into secret storage, and says so", async () => {
    const address = "https://alice:p%40ss-from-data-json@search.example.net";
    const { app, data, plugin } = await startPlugin({ data: { version: SETTINGS_VERSION, external: { searxng: { baseUrl: address } } } });
    expect(JSON.stringify(data.storedData)).not.toContain("ss-from-data-json");
    expect(plugin.settings.external.searxng.baseUrl).toBe("https://alice@search.example.net");
    expect(app.secretStorage.getSecret("vault-research-searxng")).toBe("p@ss-from-data-json");
    expect(notices.map((n) => n.message)).toEqual(["Vault Research: the SearXNG password was moved out of the settings file into Obsidian's secret storage."]);
  });

  it("moves a SearXNG password under the default id when the settings name an id secret storage refuses, so it leaves the file all the same", async () => {
    const address = "https://alice:hunter2-in-data-json@search.example.net";
    const { app, data, plugin } = await startPlugin({ data: { version: SETTINGS_VERSION, external: { searxng: { baseUrl: address, secretId: "My SearXNG login" } } } });
    expect(JSON.stringify(data.storedData)).not.toContain("hunter2-in-data-json");
    expect(plugin.settings.external.searxng).toMatchObject({ baseUrl: "https://alice@search.example.net", secretId: "vault-research-searxng" });
    expect(app.secretStorage.getSecret("vault-research-searxng")).toBe("hunter2-in-data-json");
    expect(await plugin.secrets.get("searxng")).toBe("hunter2-in-data-json");
  });

  it("shows notes that could not be read in the status bar and lists them on click", async () => {
    const vault = new Vault("Garden");
    for (const [path, text] of Object.entries(NOTES)) vault.seed(path, text, 1_700_000_000_000);
    const read = vault.cachedRead.bind(vault);
    vi.spyOn(vault, "cachedRead").mockImplementation((file: TFile) => {
      if (file.path === "Travel/Lisbon.md") return Promise.reject(new Error("EACCES: permission denied"));
      return read(file);
    });
    const { app, statusText } = await startPlugin({ vault });
    expect(statusText()).toBe("2 notes indexed · 1 problem");
    (app.statusBarEl!.querySelector(".vault-research-status") as HTMLElement).click();
    expect(openModals).toHaveLength(1);
    const text = openModals[0].contentEl.textContent ?? "";
    expect(text).toContain("Travel/Lisbon.md");
    expect(text).toContain("permission denied");
  });

  it("offers search, rebuild and research commands without default hotkeys", async () => {
    const { app } = await startPlugin();
    const commands = [...app.commands.values()];
    expect(commands.map((c) => [c.id, c.name])).toEqual([
      ["vault-research:search-vault", "Search vault"],
      ["vault-research:rebuild-index", "Rebuild index"],
      ["vault-research:show-index-status", "Show index status"],
      ["vault-research:open-research-panel", "Open research panel"],
      ["vault-research:ask-question", "Ask a research question"],
      ["vault-research:research-selection", "Research the selection"],
      ["vault-research:promote-from-trace", "Promote a result from this trace"],
      ["vault-research:clear-query-log", "Clear the search query log"],
      ["vault-research:pause-embedding", "Pause embedding"],
      ["vault-research:resume-embedding", "Resume embedding"],
      ["vault-research:cancel-embedding", "Cancel embedding"],
      ["vault-research:compare-search-levels", "Compare search levels"],
    ]);
    expect(commands.every((c) => c.hotkeys === undefined)).toBe(true);
    app.commands.get("vault-research:search-vault")!.callback!();
    expect(openModals[0].modalEl.classList.contains("vault-research-search")).toBe(true);
    // A phone has no status bar: the same box is a command.
    app.commands.get("vault-research:show-index-status")!.callback!();
    expect(openModals[1].contentEl.querySelector("p")?.textContent).toBe("3 notes indexed.");
  });

  it("asks a question from the palette where the right sidebar gives no leaf: the panel opens in a tab, the question is not dropped", async () => {
    const { app } = await startPlugin();
    app.workspace.getRightLeaf = () => null; // the API allows it
    app.commands.get("vault-research:ask-question")!.callback!();
    const modal = openModals.at(-1)!;
    modal.contentEl.querySelector("textarea")!.value = "How often do I water tomatoes?";
    modal.contentEl.querySelector<HTMLButtonElement>("button.mod-cta")!.click();
    await wait(5_000);
    const panels = app.workspace.getLeavesOfType("vault-research-panel");
    expect(panels).toHaveLength(1);
    expect(panels[0].view?.containerEl.querySelector(".vault-research-question")?.textContent).toBe("How often do I water tomatoes?");
  });

  it("rebuilds on command and reports how many notes it read", async () => {
    const { app, vault } = await startPlugin();
    const read = vi.spyOn(vault, "cachedRead");
    app.commands.get("vault-research:rebuild-index")!.callback!();
    await wait();
    expect(read).toHaveBeenCalledTimes(3);
    expect(notices.at(-1)?.message).toMatch(/^Index rebuilt: 3 notes in/);
  });

  it("says how long a rebuild took when the wall clock was set back an hour or forward a day during it (it said -3600.0 s, or a day)", async () => {
    for (const step of [-3_600_000, 24 * 3_600_000]) {
      // Date and performance faked: `setSystemTime` then moves the wall clock only, as a time sync does.
      vi.useFakeTimers({ toFake: ["Date", "performance", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate"] });
      const { plugin, vault } = await startPlugin();
      const read = vault.cachedRead.bind(vault);
      vi.spyOn(vault, "cachedRead").mockImplementation(async (file) => {
        vi.advanceTimersByTime(400);
        vi.setSystemTime(Date.now() + step / 3);
        return read(file);
      });
      const done = plugin.rebuildIndex();
      await wait();
      await done;
      expect(notices.at(-1)?.message).toBe("Index rebuilt: 3 notes in 1.2 s.");
      plugin.unload();
      vi.useRealTimers();
    }
  });

  it("saves the index to the vault's cache and starts the next session from it", async () => {
    const first = await startPlugin();
    await wait(10_000);
    expect(idb.databases.has("vault-research-cache/garden-app")).toBe(true);
    first.plugin.unload();

    const read = vi.spyOn(first.vault, "cachedRead");
    const second = await startPlugin({ vault: first.vault });
    expect(read).not.toHaveBeenCalled();
    expect(await second.search("lisbon")).toEqual(["Travel/Lisbon.md"]);
  });

  it("saves pending changes when unloaded and leaves no listeners, timers or status item behind", async () => {
    const { app, vault, plugin } = await startPlugin();
    await vault.create("New.md", "# New note about kites");
    await wait(1500); // applied, not yet saved (the save waits 10 s)
    const vaultListeners = vault.listenerCount();
    expect(vaultListeners).toBeGreaterThan(0);

    plugin.unload();
    await wait();
    expect(vault.listenerCount()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(app.statusBarEl?.children.length).toBe(0);
    expect(app.commands.size).toBe(0);

    const next = await startPlugin({ vault, ready: true });
    expect(await next.search("kites")).toEqual(["New.md"]);
  });
});
