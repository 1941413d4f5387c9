// @vitest-environment happy-dom
// The plugin's lifecycle at its edges: disabled while its settings are still being read, it adds
// nothing and writes nothing; data.json that spells a setting otherwise than the plugin uses it
// (`./AI Traces`) is saved once in the plugin's spelling, and never rewritten when nothing changed
// or when loading found values it could not use.
import { describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { App, notices, Platform, setRequestUrlHandler, Vault, type Plugin as StandInPlugin } from "../stubs/obsidian";
import { RequestUrlHttp } from "../../src/plugin/request-url-http";
import VaultResearchPlugin from "../../src/main";
import { SETTINGS_VERSION } from "../../src/settings";
import { IndexedDbCache } from "../../src/plugin/indexeddb-cache";
import { IndexedDbQueryLogFile } from "../../src/plugin/indexeddb-query-log-file";
import { IndexedDbVectorCache } from "../../src/plugin/indexeddb-vector-cache";
import { testManifest, usePluginGlobals } from "./plugin-globals";
import { wait } from "./fake-time";
import type { ResearchResult } from "../../src/research/types";
import { traceWith, webRow } from "../support/promote-fixtures";

const manifest = testManifest;
usePluginGlobals();

function newPlugin(data: unknown) {
  const vault = new Vault("Garden");
  vault.seed("Gardening/Tomatoes.md", "# Tomatoes\n\nWater deeply.\n", 1_700_000_000_000);
  const app = new App({ vault, appId: "garden-app" });
  app.workspace.triggerLayoutReady();
  const plugin = new VaultResearchPlugin(app as unknown as ObsidianApp, manifest);
  const stored = plugin as unknown as StandInPlugin;
  stored.storedData = data;
  const saves = vi.spyOn(stored, "saveData");
  return { app, vault, plugin, stored, saves };
}

async function started(data: unknown) {
  const parts = newPlugin(data);
  parts.plugin.load();
  await wait();
  return parts;
}

describe("the plugin's lifecycle", () => {
  it("disabled while its settings are read, adds no command, status item or listener and writes nothing", async () => {
    const old = { index: { excludedFolders: ["Archive"] } }; // of no version: would be saved at load
    const { app, vault, plugin, saves } = newPlugin(old);
    plugin.load(); // onload now waits for data.json
    plugin.unload();
    await wait(20_000);
    expect(app.commands.size).toBe(0);
    expect(app.statusBarEl?.children.length).toBe(0);
    expect(vault.listenerCount()).toBe(0);
    expect(saves).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("a promotion under way when the plugin is disabled", () => {
  it("writes no note, then or when its page answers later, and says it was cancelled", async () => {
    Platform.isDesktopApp = false; // the page goes through the stand-in requestUrl
    let answer: (response: { status: number; headers: Record<string, string>; body: string }) => void = () => {};
    setRequestUrlHandler(() => new Promise((resolve) => (answer = resolve)));
    try {
      const { plugin, vault } = await started({ version: SETTINGS_VERSION });
      const notesBefore = vault.getFiles().length;
      const row = webRow("brave", "https://news.example.org/release", "Automerge release", "The latest Automerge release.");
      const promoting = plugin.promoter.promoteRow(row, { trace: traceWith("What changed?", [row]) } as ResearchResult);
      await wait(100); // the page is being fetched
      plugin.unload();
      answer({ status: 200, headers: { "content-type": "text/html" }, body: `<html><body><article><h1>Release</h1><p>${"Release text. ".repeat(60)}</p></article></body></html>` });
      await wait(60_000); // past every page timeout
      const result = await promoting;
      expect(result.status).toBe("failed");
      expect(result.status === "failed" ? result.error.kind : null).toBe("cancelled");
      expect(vault.getFiles()).toHaveLength(notesBefore);
    } finally {
      Platform.isDesktopApp = true;
      setRequestUrlHandler(null);
    }
  });
});

describe("a plugin answering from recordings (the workbench's `replayed`)", () => {
  const page = `<html><head><title>Release</title></head><body><article><h1>Release notes</h1><p>${"Automerge release text with real sentences. ".repeat(12)}</p></article></body></html>`;

  async function promoteAndPrepare(replayed: VaultResearchPlugin["replayed"]) {
    Platform.isDesktopApp = false; // the page goes through the stand-in requestUrl
    setRequestUrlHandler(() => ({ status: 200, headers: { "content-type": "text/html" }, body: page }));
    try {
      const { plugin, vault } = newPlugin({ version: SETTINGS_VERSION });
      plugin.replayed = replayed;
      plugin.load();
      await wait();
      const prepared = await (plugin as unknown as { prepareRun(): Promise<{ ok: boolean; deps: { replayedFrom?: string } }> }).prepareRun();
      const row = webRow("brave", "https://news.example.org/release", "Automerge release", "The latest Automerge release.");
      const result = await plugin.promoter.promoteRow(row, { trace: traceWith("What changed?", [row]) } as ResearchResult);
      const note = result.status === "created" ? await vault.read(vault.getFileByPath(result.notePath)!) : "";
      plugin.unload();
      return { replayedFrom: prepared.deps.replayedFrom, note };
    } finally {
      Platform.isDesktopApp = true;
      setRequestUrlHandler(null);
    }
  }

  it("marks each run's trace and each promoted note as recorded", async () => {
    const { replayedFrom, note } = await promoteAndPrepare({ runs: () => "fixtures/replay/runs", pages: () => "fixtures/replay/pages" });
    expect(replayedFrom).toBe("fixtures/replay/runs");
    expect(note).toContain("fixtures/replay/pages");
  });

  it("marks nothing in Obsidian, where every answer is live", async () => {
    const { replayedFrom, note } = await promoteAndPrepare(null);
    expect(replayedFrom).toBeUndefined();
    expect(note).toContain("Release notes");
    expect(note).not.toMatch(/replayed|sample/i);
  });
});

describe("the plugin's databases", () => {
  it("are each closed at unload, so no IndexedDB connection outlives the plugin (a disable, an update)", async () => {
    const closes = [IndexedDbCache, IndexedDbVectorCache, IndexedDbQueryLogFile].map((kind) => vi.spyOn(kind.prototype, "close"));
    try {
      const { plugin } = await started({ version: SETTINGS_VERSION });
      // The index cache, the vectors' and the query log's: none closed while the plugin runs.
      expect(closes.map((close) => close.mock.calls.length)).toEqual([0, 0, 0]);
      plugin.unload();
      // The vectors' cache closes through the one it wraps, so the index cache's close is seen twice.
      expect(closes.map((close) => close.mock.calls.length >= 1)).toEqual([true, true, true]);
    } finally {
      for (const close of closes) close.mockRestore();
    }
  });
});

describe("settings stored in another spelling", () => {
  it("are saved once in the plugin's spelling, with the user's values kept", async () => {
    const stored = { version: SETTINGS_VERSION, notes: { traceFolder: "./AI Traces" }, index: { excludedFolders: ["Archive/", "Archive", "Inbox"] } };
    const first = await started(stored);
    expect(first.saves).toHaveBeenCalledTimes(1);
    expect(first.stored.storedData).toMatchObject({ notes: { traceFolder: "AI Traces" }, index: { excludedFolders: ["Archive", "Inbox"] } });
    expect(notices).toHaveLength(0);
    first.plugin.unload();

    const second = await started(first.stored.storedData);
    expect(second.saves).not.toHaveBeenCalled();
    expect(second.plugin.settings.notes.traceFolder).toBe("AI Traces");
    second.plugin.unload();
  });

  it("are not written when the file already says what is in use, however little it says", async () => {
    const { saves, plugin } = await started({ version: SETTINGS_VERSION, index: { stemming: false } });
    expect(saves).not.toHaveBeenCalled();
    expect(plugin.settings.index.stemming).toBe(false);
    plugin.unload();
  });

  it("are left alone, with the warning shown once, when loading found a value it could not use", async () => {
    const stored = { version: SETTINGS_VERSION, notes: { traceFolder: "./AI Traces" }, external: { count: "many" } };
    const { saves, stored: data, plugin } = await started(stored);
    expect(saves).not.toHaveBeenCalled();
    expect(data.storedData).toEqual(stored);
    expect(notices.filter((n) => n.message.includes("external.count"))).toHaveLength(1);
    plugin.unload();
  });

  it("a setting only a newer version knows is no problem: no notice at each start, no copy, and a save keeps it", async () => {
    const stored = { version: SETTINGS_VERSION, notes: { traceFolder: "Runs" }, newerSetting: { on: true } };
    const { saves, stored: data, plugin } = await started(stored);
    expect(saves).not.toHaveBeenCalled();
    expect(notices.filter((n) => n.message.includes("newerSetting"))).toEqual([]);
    await plugin.saveSettings();
    expect(data.storedData).toMatchObject({ notes: { traceFolder: "Runs" }, newerSetting: { on: true } });
    plugin.unload();
  });
});

describe("an API key typed into the settings file by hand", () => {
  const KEY = "sk-proj-Hq72Lx95WzNs41Tc68Pe";

  it("is not written back by any save, and the notice says where it is and where keys go, never the key", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const { plugin, stored, app } = await started({ version: SETTINGS_VERSION, model: { kind: "openai", apiKey: KEY }, search: { futureSetting: "kept" } });
    const told = notices.map((n) => n.message).join("\n");
    expect(told).toContain("under model.apiKey");
    expect(told).toContain("secret storage");
    expect(told).not.toContain(KEY);
    expect(JSON.stringify(vi.mocked(console.warn).mock.calls)).not.toContain(KEY);
    // No copy of the file either: a copy would hold the key a second time.
    expect(await app.vault.adapter.exists(`${app.vault.configDir}/plugins/vault-research/data.unusable.json`)).toBe(false);
    plugin.settings.search.showScores = true;
    await plugin.saveSettings();
    expect(JSON.stringify(stored.storedData)).not.toContain(KEY);
    // The settings a newer version wrote are still carried along.
    expect((stored.storedData as { search: { futureSetting?: string } }).search.futureSetting).toBe("kept");
    plugin.unload();
  });

  it("leaves the file at start, and only the key does: a newer version's settings and the rest stay as written", async () => {
    // Left in the file until the user happened to change a setting (its sync and backups carrying
    // it), with the notice back at every start.
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const file = { version: SETTINGS_VERSION + 1, model: { kind: "openai", apiKey: KEY }, search: { futureSetting: "kept" } };
    const { plugin, stored } = await started(file);
    expect(stored.storedData).toEqual({ version: SETTINGS_VERSION + 1, model: { kind: "openai" }, search: { futureSetting: "kept" } });
    plugin.unload();
    notices.length = 0;
    const again = await started(stored.storedData);
    expect(notices.filter((n) => n.message.includes("API key"))).toEqual([]);
    again.plugin.unload();
  });

  it("in a file with a value loading could not use is in neither the file nor the copy kept of it", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const dir = ".obsidian/plugins/vault-research";
    const file = { version: SETTINGS_VERSION, external: { count: "many", braveApiKey: "BSAq8Lw2Zr5Tn0Vx7Mk3" }, notes: { traceFolder: "Runs" } };
    const { vault, plugin, stored } = newPlugin(file);
    await vault.adapter.write(`${dir}/data.json`, JSON.stringify(file));
    vi.spyOn(stored, "saveData").mockImplementation(async (data: unknown) => {
      stored.storedData = structuredClone(data);
      await vault.adapter.write(`${dir}/data.json`, JSON.stringify(data));
    });
    plugin.load();
    await wait();
    const copy = await vault.adapter.read(`${dir}/data.unusable.json`);
    expect(copy).toContain('"count":"many"');
    expect(copy).not.toContain("BSAq8Lw2Zr5Tn0Vx7Mk3");
    expect(JSON.stringify(stored.storedData)).not.toContain("BSAq8Lw2Zr5Tn0Vx7Mk3");
    expect(stored.storedData).toMatchObject({ external: { count: "many" }, notes: { traceFolder: "Runs" } });
    plugin.unload();
  });

  it("pasted as the model's name is in neither the file nor the copy kept of it once loading refused it", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const dir = ".obsidian/plugins/vault-research";
    const file = { version: SETTINGS_VERSION, model: { kind: "openai", model: KEY }, notes: { traceFolder: "Runs" } };
    const { vault, plugin, stored } = newPlugin(file);
    await vault.adapter.write(`${dir}/data.json`, JSON.stringify(file));
    vi.spyOn(stored, "saveData").mockImplementation(async (data: unknown) => {
      stored.storedData = structuredClone(data);
      await vault.adapter.write(`${dir}/data.json`, JSON.stringify(data));
    });
    plugin.load();
    await wait();
    expect(notices.some((n) => n.message.includes("model.model"))).toBe(true);
    expect(await vault.adapter.read(`${dir}/data.unusable.json`)).not.toContain(KEY);
    expect(stored.storedData).toEqual({ version: SETTINGS_VERSION, model: { kind: "openai" }, notes: { traceFolder: "Runs" } });
    plugin.unload();
  });

  it("brought by a change on disk is not taken up either", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const { plugin, stored } = await started({ version: SETTINGS_VERSION });
    stored.storedData = { version: SETTINGS_VERSION, search: { showScores: true }, external: { braveApiKey: "BSAq8Lw2Zr5Tn0Vx7Mk3" } };
    await plugin.onExternalSettingsChange();
    expect(plugin.settings.search.showScores).toBe(true);
    expect(notices.map((n) => n.message).join("\n")).toContain("under external.braveApiKey");
    // The file loses it at once, not at the next change of a setting.
    expect(JSON.stringify(stored.storedData)).not.toContain("BSAq8Lw2Zr5Tn0Vx7Mk3");
    plugin.settings.search.queryLog = false;
    await plugin.saveSettings();
    expect(JSON.stringify(stored.storedData)).not.toContain("BSAq8Lw2Zr5Tn0Vx7Mk3");
    plugin.unload();
  });

  it("brought by a change on disk that otherwise says what is in use leaves the file too", async () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const { plugin, stored } = await started({ version: SETTINGS_VERSION });
    stored.storedData = { ...structuredClone(plugin.settings), tavilyApiKey: "tvly-dev-Hq72Lx95WzNs41Tc" };
    await plugin.onExternalSettingsChange();
    expect(JSON.stringify(stored.storedData)).not.toContain("tvly-dev-Hq72Lx95WzNs41Tc");
    plugin.unload();
  });
});

describe("a settings file of a newer version", () => {
  it("is not written at start: this version's defaults would be pinned into it, at every start", async () => {
    const stored = { version: SETTINGS_VERSION + 1, notes: { traceFolder: "Runs" }, newerSetting: { on: true } };
    const { saves, stored: data, plugin } = await started(stored);
    expect(saves).not.toHaveBeenCalled();
    expect(data.storedData).toEqual(stored);
    expect(plugin.settings.notes.traceFolder).toBe("Runs");
    plugin.unload();
  });
});

describe("a settings file the plugin cannot use", () => {
  const dir = ".obsidian/plugins/vault-research";

  it("that is not JSON (a sync conflict) is kept as a copy before any save writes over it, and the notice says where", async () => {
    const broken = '{\n<<<<<<< laptop\n  "notes": { "traceFolder": "Mine" }\n=======\n  "notes": { "traceFolder": "Theirs" }\n>>>>>>> phone\n}\n';
    const { vault, plugin, stored } = newPlugin(null);
    await vault.adapter.write(`${dir}/data.json`, broken);
    vi.spyOn(stored, "loadData").mockRejectedValue(new SyntaxError("Unexpected token '<' in JSON at position 2"));
    plugin.load();
    await wait();
    expect(await vault.adapter.read(`${dir}/data.unusable.json`)).toBe(broken);
    expect(notices.filter((n) => n.message.includes("could not be read") && n.message.includes(`${dir}/data.unusable.json`))).toHaveLength(1);
    // The next change of a setting writes the settings in use; the user's file is still there to fix.
    await plugin.saveSettings();
    expect(await vault.adapter.read(`${dir}/data.unusable.json`)).toBe(broken);
    plugin.unload();

    // Started again with the same file: the copy already kept is named, no second one is made.
    const again = newPlugin(null);
    await again.vault.adapter.write(`${dir}/data.json`, broken);
    await again.vault.adapter.write(`${dir}/data.unusable.json`, broken);
    vi.spyOn(again.stored, "loadData").mockRejectedValue(new SyntaxError("Unexpected token"));
    again.plugin.load();
    await wait();
    expect(await again.vault.adapter.exists(`${dir}/data.unusable-2.json`)).toBe(false);
    again.plugin.unload();
  });

  it("that cannot be read at all (another program holds it locked) is not written over until a copy of it is kept", async () => {
    const mine = '{"version":1,"notes":{"traceFolder":"Mine"},"search":{"showScores":true}}';
    const { vault, plugin, stored, saves } = newPlugin(null);
    await vault.adapter.write(`${dir}/data.json`, mine);
    const locked = () => Promise.reject(new Error("EBUSY: resource busy or locked"));
    vi.spyOn(stored, "loadData").mockImplementation(locked);
    const read = vi.spyOn(vault.adapter, "read").mockImplementation(locked);
    vi.spyOn(console, "warn").mockImplementation(() => {});
    plugin.load();
    await wait();
    expect(notices.some((n) => n.message.includes("EBUSY") && n.message.includes("Nothing is saved over the file until it can be read."))).toBe(true);
    // A setting changed meanwhile (the search dial remembers its level by a save) applies, and writes nothing over the user's file.
    plugin.settings.search.searchLevel = 2;
    await plugin.saveSettings();
    expect(saves).not.toHaveBeenCalled();
    expect(plugin.searchDial.dial.level("search-modal")).toBe(2);
    expect(notices.some((n) => n.message.includes("could not be saved") && n.message.includes("not written over"))).toBe(true);

    // Readable again: a copy of it is kept first, and said, then the settings in use are saved.
    read.mockRestore();
    await plugin.saveSettings();
    expect(await vault.adapter.read(`${dir}/data.unusable.json`)).toBe(mine);
    expect(notices.some((n) => n.message.includes(`kept as ${dir}/data.unusable.json`))).toBe(true);
    expect(saves).toHaveBeenCalledTimes(1);
    plugin.unload();
  });

  it("unread at start and read again when it changes on disk is followed, and no copy of it is kept as unusable", async () => {
    const mine = { version: SETTINGS_VERSION, notes: { traceFolder: "Mine" } };
    const { vault, plugin, stored, saves } = newPlugin(mine);
    await vault.adapter.write(`${dir}/data.json`, JSON.stringify(mine));
    const locked = () => Promise.reject(new Error("EBUSY: resource busy or locked"));
    const load = vi.spyOn(stored, "loadData").mockImplementation(locked);
    const read = vi.spyOn(vault.adapter, "read").mockImplementation(locked);
    vi.spyOn(console, "warn").mockImplementation(() => {});
    plugin.load();
    await wait();
    load.mockRestore();
    read.mockRestore();
    // Sync let go of it: the change is read and followed; the file holds what is in use now.
    await plugin.onExternalSettingsChange();
    expect(plugin.settings.notes.traceFolder).toBe("Mine");
    notices.length = 0;
    plugin.settings.search.showScores = true;
    await plugin.saveSettings();
    expect(saves).toHaveBeenCalledTimes(1);
    expect(await vault.adapter.exists(`${dir}/data.unusable.json`)).toBe(false);
    expect(notices.filter((n) => n.message.includes("could be read again"))).toEqual([]);
    plugin.unload();
  });

  it("with values it cannot use is kept as a copy too; another unusable file gets a copy of its own", async () => {
    const { vault, plugin } = newPlugin({ version: SETTINGS_VERSION, external: { count: "many" } });
    await vault.adapter.write(`${dir}/data.json`, '{"version":1,"external":{"count":"many"}}');
    await vault.adapter.write(`${dir}/data.unusable.json`, "an older broken file");
    plugin.load();
    await wait();
    expect(await vault.adapter.read(`${dir}/data.unusable.json`)).toBe("an older broken file");
    expect(await vault.adapter.read(`${dir}/data.unusable-2.json`)).toBe('{"version":1,"external":{"count":"many"}}');
    expect(notices.some((n) => n.message.includes("external.count") && n.message.includes("data.unusable-2.json"))).toBe(true);
    plugin.unload();
  });
});

describe("a SearXNG password in a settings file with a value the plugin cannot use", () => {
  const dir = ".obsidian/plugins/vault-research";
  const address = "https://alice:hunter2-in-data-json@search.example.net";

  it("leaves the file, and the copy kept of it, at once; the other values stay in the file as written", async () => {
    const file = { version: SETTINGS_VERSION, external: { count: "many", providers: ["searxng"], searxng: { baseUrl: address } }, notes: { traceFolder: "Runs" } };
    const { app, vault, plugin, stored } = newPlugin(file);
    // As in the app, saveData writes data.json itself, which the copy is made from.
    await vault.adapter.write(`${dir}/data.json`, JSON.stringify(file));
    vi.spyOn(stored, "saveData").mockImplementation(async (data: unknown) => {
      stored.storedData = structuredClone(data);
      await vault.adapter.write(`${dir}/data.json`, JSON.stringify(data));
    });
    vi.spyOn(console, "warn").mockImplementation(() => {});
    plugin.load();
    await wait();
    expect(app.secretStorage.getSecret("vault-research-searxng")).toBe("hunter2-in-data-json");
    expect(stored.storedData).toEqual({ ...file, external: { ...file.external, searxng: { baseUrl: "https://alice@search.example.net" } } });
    expect(await vault.adapter.read(`${dir}/data.unusable.json`)).not.toContain("hunter2");
    expect(notices.some((n) => n.message.includes("external.count"))).toBe(true);
    // The next change of a setting writes the settings in use: still no password.
    await plugin.saveSettings();
    expect(JSON.stringify(stored.storedData)).not.toContain("hunter2");
    plugin.unload();
  });

  it("under an id secret storage refuses: the file names the id the password went to, so the next start finds it", async () => {
    const file = { version: SETTINGS_VERSION, external: { count: "many", searxng: { baseUrl: address, secretId: "My SearXNG login" } } };
    const first = newPlugin(file);
    vi.spyOn(console, "warn").mockImplementation(() => {});
    first.plugin.load();
    await wait();
    expect(first.stored.storedData).toEqual({ ...file, external: { ...file.external, searxng: { baseUrl: "https://alice@search.example.net", secretId: "vault-research-searxng" } } });
    first.plugin.unload();

    // Started again from the file as written, with the same secret storage: the password is found.
    const again = newPlugin(first.stored.storedData);
    again.app.secretStorage = first.app.secretStorage;
    again.plugin.load();
    await wait();
    expect(await again.plugin.secrets.get("searxng")).toBe("hunter2-in-data-json");
    again.plugin.unload();
  });
});

describe("page fetches and keyed requests", () => {
  // What a run and a promotion are given; desktop-pages.test.ts shows what each path does with a
  // page, desktop-keys.test.ts with a key.
  type Wired = { http: unknown; fetchGuard?: { resolve?: unknown } };
  const runDeps = async (plugin: VaultResearchPlugin): Promise<Wired> => {
    const prepared = (await (plugin as unknown as { prepareRun(): Promise<{ ok: boolean; deps: Wired }> }).prepareRun());
    return prepared.deps;
  };
  const promoterDeps = (plugin: VaultResearchPlugin) => (plugin.promoter as unknown as { deps: { pages(): Promise<Wired> } }).deps.pages();

  it("on desktop, runs and promotions get the Node page path and the guard's name lookup", async () => {
    const { plugin } = await started(null);
    for (const deps of [await runDeps(plugin), await promoterDeps(plugin)]) {
      expect(deps.http).not.toBeInstanceOf(RequestUrlHttp);
      expect(typeof deps.fetchGuard?.resolve).toBe("function");
    }
    plugin.unload();
  });

  it("on desktop, what models and embeddings send through sends a keyed request over Node, a keyless one through requestUrl", async () => {
    const server = createServer((req, res) => res.writeHead(200).end(req.headers.authorization ?? "no key"));
    const origin = await new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
    const viaRequestUrl: string[] = [];
    setRequestUrlHandler(async (param) => (viaRequestUrl.push(param.url), { status: 200, body: "via requestUrl" }));
    try {
      const { plugin } = await started(null);
      const keyed = await plugin.http.request({ method: "POST", url: `${origin}/v1/chat/completions`, headers: { authorization: "Bearer sk-0123456789abcdef" }, body: "{}" });
      expect(keyed.text).toBe("Bearer sk-0123456789abcdef");
      const keyless = await plugin.http.request({ method: "GET", url: `${origin}/api/tags` });
      expect(keyless.text).toBe("via requestUrl");
      expect(viaRequestUrl).toEqual([`${origin}/api/tags`]);
      plugin.unload();
    } finally {
      setRequestUrlHandler(null);
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("on mobile, they get requestUrl and no lookup", async () => {
    Platform.isDesktopApp = false;
    try {
      const { plugin } = await started(null);
      for (const deps of [await runDeps(plugin), await promoterDeps(plugin)]) {
        expect(deps.http).toBeInstanceOf(RequestUrlHttp);
        expect(deps.fetchGuard).toBeUndefined();
      }
      plugin.unload();
    } finally {
      Platform.isDesktopApp = true;
    }
  });
});

describe("a question asked while the index is first built", () => {
  it("waits for the index and says how far it is, until it is ready", async () => {
    const { plugin, vault } = newPlugin(null);
    vault.seed("Gardening/Beans.md", "# Beans\n\nClimb poles.\n", 1_700_000_000_000);
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const read = vault.cachedRead.bind(vault);
    vi.spyOn(vault, "cachedRead").mockImplementation(async (file) => (await held, read(file)));
    plugin.load();
    await wait();
    const said: string[] = [];
    let prepared = false;
    const host = (plugin as unknown as { researchHost(): { prepareRun(onWait: (text: string) => void): Promise<{ ok: boolean }> } }).researchHost();
    const preparing = host.prepareRun((text) => said.push(text)).then((p) => ((prepared = true), p));
    await wait(1_200);
    expect(prepared).toBe(false);
    expect(said[0]).toBe("Waiting for the index: 0 of 2 notes…");
    expect(said.length).toBeGreaterThanOrEqual(3); // said again every half second
    release();
    expect((await preparing).ok).toBe(true);
    const after = said.length;
    await wait(2_000);
    expect(said).toHaveLength(after); // and no more once it is ready
    plugin.unload();
  });
});

describe("settings that cannot be written", () => {
  it("do not keep the plugin from loading when the load-time save fails", async () => {
    const parts = newPlugin({ index: { excludedFolders: ["Archive"] } }); // of no version: saved at load
    parts.saves.mockRejectedValue(new Error("EROFS: read-only file system"));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    parts.plugin.load();
    await wait();
    expect(parts.app.commands.size).toBeGreaterThan(0);
    expect(parts.plugin.index.status().notes).toBe(1);
    expect(parts.plugin.settings.index.excludedFolders).toEqual(["Archive"]);
    parts.plugin.unload();
  });

  it("still apply, and say so once until a write works again", async () => {
    const { plugin, saves } = await started(null);
    vi.spyOn(console, "warn").mockImplementation(() => {});
    saves.mockRejectedValue(new Error("EROFS: read-only file system"));
    plugin.settings.search.queryLog = false;
    await plugin.saveSettings();
    expect(plugin.searchDial.queryLog.enabled).toBe(false);
    plugin.settings.search.showScores = true;
    await plugin.saveSettings();
    const told = notices.filter((n) => n.message.includes("could not be saved"));
    expect(told.map((n) => n.message)).toEqual(["Vault Research: the settings could not be saved (EROFS: read-only file system). They apply until Obsidian closes."]);

    saves.mockResolvedValue(undefined);
    await plugin.saveSettings();
    saves.mockRejectedValue(new Error("EROFS: read-only file system"));
    await plugin.saveSettings();
    expect(notices.filter((n) => n.message.includes("could not be saved"))).toHaveLength(2);
    plugin.unload();
  });
});
