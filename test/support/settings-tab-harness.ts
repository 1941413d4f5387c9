// The settings tab as the tests open it: a host whose every call is a spy (over it what a test
// needs), the tab displayed, and its rows found by name.
import { vi, type Mock } from "vitest";
import type { App as ObsidianApp, Plugin as ObsidianPlugin } from "obsidian";
import type { App, SettingTab as StandInSettingTab } from "../stubs/obsidian";
import { VaultResearchSettingTab, type SettingsHost } from "../../src/ui/settings-tab";
import type { Settings } from "../../src/settings";

/** The host's calls a test looks at afterwards: each is a spy (a property, so `expect(host.saveSettings)` takes no method off its object). */
type SpiedCall = "saveSettings" | "applyIndexSettings" | "rebuildIndex" | "testModelConnection" | "clearQueryLog";
export type FakeSettingsHost = Omit<SettingsHost, SpiedCall> & { [K in SpiedCall]: Mock<SettingsHost[K]> };

export function fakeSettingsHost(settings: Settings, over: Partial<FakeSettingsHost> = {}): FakeSettingsHost {
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

/**
 * The two ways the app shows the tab: Obsidian 1.13 and later draw it from its definitions (which
 * its settings search reads), older versions call its `display()`. Each settings test runs in both.
 */
export const TAB_VERSIONS = [
  { shown: "drawn from its definitions (Obsidian 1.13)", version: "1.13.1" },
  { shown: "drawn by display() (Obsidian 1.12)", version: "1.12.7" },
] as const;

/** The tab over `host`, opened as the app of `version` opens it, and its shown row of a given name (undefined when there is none). */
export function displayedTab(app: App, host: SettingsHost, version: string = TAB_VERSIONS[0].version) {
  const tab = new VaultResearchSettingTab(app as unknown as ObsidianApp, {} as unknown as ObsidianPlugin, host);
  /** Closes nothing and opens the tab again, as the app does when the user comes back to it. */
  const reopen = () => (tab as unknown as StandInSettingTab).open(version);
  reopen();
  const setting = (name: string) => shownRows(tab.containerEl).find((s) => s.querySelector(".setting-item-name")?.textContent === name);
  return { tab, setting, reopen };
}

/** The rows on screen (a row whose `visible` is false is drawn out of sight). */
export function shownRows(root: HTMLElement): HTMLElement[] {
  return [...root.querySelectorAll<HTMLElement>(".setting-item")].filter((s) => s.style.display !== "none");
}
