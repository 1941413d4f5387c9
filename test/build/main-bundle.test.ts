// The plugin as Obsidian will load it: one CommonJS file that requires `obsidian` and nothing else
// as it loads (anything more fails on mobile; Node's built-ins are required only on desktop, for page
// reads and requests that carry a key, plugin/desktop-pages.ts), which loads, registers its commands and settings tab,
// opens its research panel, and on unload leaves no timer running, no event handler attached and
// no view open.
import { build } from "esbuild";
import path from "node:path";
import vm from "node:vm";
import { Window } from "happy-dom";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeIndexedDb } from "../plugin/fake-indexeddb";
import type * as StandIn from "../stubs/obsidian";
import type VaultResearchPlugin from "../../src/main";

const root = path.resolve(__dirname, "../..");

/** Same options as the plugin build in esbuild.config.mjs, kept in memory. */
async function bundle(entry: string, external: string[]): Promise<string> {
  const result = await build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    format: "cjs",
    platform: "browser",
    target: "es2022",
    treeShaking: true,
    external,
    write: false,
    outfile: "out.js",
    logLevel: "silent",
  });
  return result.outputFiles[0].text;
}

/** Module names the bundle asks `require` for. */
function requiredModules(code: string): string[] {
  return [...new Set([...code.matchAll(/\brequire\s*\(\s*(["'`])([^"'`]+)\1\s*\)/g)].map((m) => m[2]))];
}

/** Timers of the sandbox, so the test can see what is still pending after unload: each one's delay, and whether it was set after `unloaded()`. */
function trackedTimers() {
  type Timer = { ms: number; repeats: boolean; afterUnload: boolean };
  const live = new Map<ReturnType<typeof setTimeout>, Timer>();
  let unloaded = false;
  return {
    live,
    unloaded: () => void (unloaded = true),
    /** What unload left behind: an interval, a timer set before it, or a long one set after it (a short one after it is the last turn of work that was under way). */
    leftBehind: () => [...live.values()].filter((t) => t.repeats || !t.afterUnload || t.ms > 20).map((t) => `${t.repeats ? "interval" : "timer"} of ${t.ms} ms set ${t.afterUnload ? "after" : "before"} unload`),
    setTimeout: (fn: () => void, ms?: number, ...args: unknown[]) => {
      const handle = setTimeout(() => {
        live.delete(handle);
        fn(...(args as []));
      }, ms);
      live.set(handle, { ms: ms ?? 0, repeats: false, afterUnload: unloaded });
      return handle;
    },
    clearTimeout: (handle: ReturnType<typeof setTimeout> | undefined) => {
      if (handle === undefined) return;
      live.delete(handle);
      clearTimeout(handle);
    },
    setInterval: (fn: () => void, ms?: number) => {
      const handle = setInterval(fn, ms);
      live.set(handle, { ms: ms ?? 0, repeats: true, afterUnload: unloaded });
      return handle;
    },
    clearInterval: (handle: ReturnType<typeof setInterval> | undefined) => {
      if (handle === undefined) return;
      live.delete(handle);
      clearInterval(handle);
    },
  };
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("built plugin bundle", () => {
  let code = "";
  let stubCode = "";
  const win = new Window();

  beforeAll(async () => {
    code = await bundle("src/main.ts", ["obsidian", "electron", "@codemirror/*", "@lezer/*", "node:*"]);
    stubCode = await bundle("test/stubs/obsidian.ts", []);
  });
  afterAll(async () => {
    await win.happyDOM.close();
  });

  it("requires obsidian, and Node's built-ins only on desktop, for page fetches and requests that carry a key (loaded at start there)", () => {
    expect(requiredModules(code).sort()).toEqual(["node:dns/promises", "node:http", "node:https", "node:net", "node:stream", "node:zlib", "obsidian"]);
    expect(code).not.toMatch(/\brequire\s*\(\s*[^"'`\s)]/); // no computed require(name)
  });

  it("loads in a sandbox with only a stand-in obsidian (as on mobile), and unloads without leaving anything behind", async () => {
    const timers = trackedTimers();
    const warnings: string[] = [];
    const sandbox: Record<string, unknown> = {
      console: { ...console, warn: (...a: unknown[]) => void warnings.push(a.map(String).join(" ")), info: () => {}, debug: () => {} },
      ...timers,
      queueMicrotask,
      structuredClone,
      TextEncoder,
      TextDecoder,
      URL,
      // Every Obsidian platform (Electron, iOS and Android web views) has atob; the entities decoder uses it.
      atob,
      // Every platform's window has performance.now(): the plugin's clock measures durations on it.
      performance,
      // And Web Crypto (Obsidian's pages are a secure context): the saved parts' checksums are SHA-256 on it.
      crypto: globalThis.crypto,
      AbortController,
      DOMException,
      Intl,
      indexedDB: new FakeIndexedDb().asFactory(),
      document: win.document,
      Node: win.Node,
      Element: win.Element,
      HTMLElement: win.HTMLElement,
      KeyboardEvent: win.KeyboardEvent,
      MouseEvent: win.MouseEvent,
      Event: win.Event,
    };
    sandbox.window = sandbox;
    vm.createContext(sandbox);
    const load = (source: string, requireFn: (name: string) => unknown) => {
      const module = { exports: {} as Record<string, unknown> };
      const wrapper = vm.runInContext(`(function (module, exports, require) {\n${source}\n})`, sandbox) as (
        m: typeof module,
        e: typeof module.exports,
        r: typeof requireFn,
      ) => void;
      wrapper(module, module.exports, requireFn);
      return module.exports;
    };
    const obsidian = load(stubCode, (name) => {
      throw new Error(`the stand-in must not require ${name}`);
    }) as typeof StandIn;
    // As on a phone: no Node. The bundle must load, run and unload without asking for any of it.
    Object.assign(obsidian.Platform, { isDesktop: false, isDesktopApp: false, isMobile: true, isMobileApp: true });
    const asked: string[] = [];
    const pluginModule = load(code, (name) => {
      asked.push(name);
      if (name === "obsidian") return obsidian;
      throw new Error(`Cannot find module '${name}'`);
    });

    const vault = new obsidian.Vault("Sandbox vault");
    vault.seed("Welcome.md", "# Welcome\n\nThis vault talks about kites.");
    vault.seed("Folder/Second.md", "# Second\n\nAnd about boats.");
    const app = new obsidian.App({ vault, appId: "sandbox" });
    const PluginClass = pluginModule.default as new (app: StandIn.App, manifest: StandIn.PluginManifest) => Pick<VaultResearchPlugin, "load" | "unload" | "index">;
    const plugin = new PluginClass(app, { id: "vault-research", name: "Vault Research", version: "0.1.0", minAppVersion: "1.11.4", author: "", description: "" });

    plugin.load();
    await until(() => app.commands.size > 0, "onload");
    expect([...app.commands.keys()]).toEqual([
      "vault-research:search-vault",
      "vault-research:rebuild-index",
      "vault-research:show-index-status",
      "vault-research:open-research-panel",
      "vault-research:ask-question",
      "vault-research:research-selection",
      "vault-research:promote-from-trace",
      "vault-research:clear-query-log",
      "vault-research:pause-embedding",
      "vault-research:resume-embedding",
      "vault-research:cancel-embedding",
      "vault-research:compare-search-levels",
    ]);
    expect(app.settingTabs).toHaveLength(1);
    // Obsidian 1.13's settings search reads the tab's definitions when it is added.
    expect(app.settingTabs[0].settingItems.map((group: { heading?: string }) => group.heading)).toContain("Privacy");
    expect([...app.workspace.viewCreators.keys()]).toEqual(["vault-research-panel", "vault-research-comparison"]);
    expect(new Set(asked)).toEqual(new Set(["obsidian"]));

    app.workspace.triggerLayoutReady();
    await until(() => plugin.index.status().state === "ready", "the first index build");
    expect(plugin.index.status().notes).toBe(2);
    await vault.create("Third.md", "# Third");
    expect(vault.listenerCount()).toBeGreaterThan(0);
    expect(timers.live.size).toBeGreaterThan(0); // the pending update, at least

    app.commands.get("vault-research:open-research-panel")!.callback!();
    await until(() => app.workspace.getLeavesOfType("vault-research-panel").length === 1, "the research panel");
    const panel = app.workspace.getLeavesOfType("vault-research-panel")[0].view;
    if (!(panel instanceof obsidian.ItemView)) throw new Error("the research panel is not an item view");
    expect(panel.getDisplayText()).toBe("Research");
    expect(panel.contentEl.querySelector(".vault-research-composer textarea")).not.toBeNull();

    timers.unloaded();
    plugin.unload();
    await new Promise((r) => setTimeout(r, 20));
    expect(timers.leftBehind()).toEqual([]);
    // Work that was under way when unload came ends in a few turns (on a busy machine, not in 20 ms).
    await until(() => timers.live.size === 0, "the last turns of work under way at unload", 2000);
    expect(vault.listenerCount()).toBe(0);
    expect(app.workspace.listenerCount()).toBe(0);
    expect(app.commands.size).toBe(0);
    expect(app.settingTabs).toHaveLength(0);
    expect(app.workspace.viewCreators.size).toBe(0);
    expect(app.workspace.getLeavesOfType("vault-research-panel")).toHaveLength(0);
    expect(app.workspace.leaves).toHaveLength(0);
    expect(app.statusBarEl!.children.length).toBe(0);
    expect(warnings).toEqual([]);
  });
});
