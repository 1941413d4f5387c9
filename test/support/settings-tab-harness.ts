// The settings tab as the tests open it: a host whose every call is a spy (over it what a test
// needs), the tab displayed, and its rows found by name.
import { vi } from "vitest";
import type { App as ObsidianApp, Plugin as ObsidianPlugin } from "obsidian";
import type { App } from "../stubs/obsidian";
import { VaultResearchSettingTab, type SettingsHost } from "../../src/ui/settings-tab";
import type { Settings } from "../../src/settings";

export function fakeSettingsHost(settings: Settings, over: Partial<SettingsHost> = {}): SettingsHost {
  return {
    settings,
    saveSettings: vi.fn(async () => {}),
    applyIndexSettings: vi.fn(async () => {}),
    rebuildIndex: vi.fn(async () => {}),
    testModelConnection: vi.fn(async () => ({ ok: true, message: "ok" })),
    embeddingChoice: () => ({ kind: "off" }),
    clearQueryLog: vi.fn(async () => "The search query log is cleared."),
    ...over,
  };
}

/** The tab over `host`, displayed, and its row of a given name (undefined when there is none). */
export function displayedTab(app: App, host: SettingsHost) {
  const tab = new VaultResearchSettingTab(app as unknown as ObsidianApp, {} as unknown as ObsidianPlugin, host);
  tab.display();
  const setting = (name: string) => [...tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")].find((s) => s.querySelector(".setting-item-name")?.textContent === name);
  return { tab, setting };
}
