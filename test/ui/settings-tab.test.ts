// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { App } from "../stubs/obsidian";
import { PRIVACY_NOTE } from "../../src/ui/settings-tab";
import { displayedTab, fakeSettingsHost } from "../support/settings-tab-harness";
import { defaultSettings, settingsSchema } from "../../src/settings";

function openTab() {
  const app = new App();
  const settings = defaultSettings();
  const saved: string[] = [];
  const host = fakeSettingsHost(settings, {
    saveSettings: vi.fn(async () => void saved.push(JSON.stringify(settings))),
    testModelConnection: vi.fn(async () => ({ ok: false, message: "Could not use llama: connection refused" })),
  });
  const { tab, setting: row } = displayedTab(app, host);
  const setting = (name: string) => row(name)!;
  return { app, tab, host, settings, saved, setting };
}

describe("the settings tab", () => {
  it("opens with the privacy note and external search off", () => {
    const { tab, setting } = openTab();
    expect([...tab.containerEl.querySelectorAll(".vault-research-privacy p")].map((p) => p.textContent)).toEqual(PRIVACY_NOTE);
    expect(setting("Allow web search").querySelector(".checkbox-container")!.classList.contains("is-enabled")).toBe(false);
  });

  it("keeps only the secret's id in settings, never the key", async () => {
    const { app, tab, settings, saved } = openTab();
    app.secretStorage.setSecret("my-brave", "BSA-very-secret");
    tab.display();
    // The first secret picker is Brave's.
    const select = tab.containerEl.querySelector(".secret-component select") as HTMLSelectElement;
    select.value = "my-brave";
    select.dispatchEvent(new Event("change"));
    await Promise.resolve();
    expect(settings.external.brave.secretId).toBe("my-brave");
    expect(saved.join("\n")).not.toContain("BSA-very-secret");
  });

  it("does not save a number outside what the schema allows, and says why", async () => {
    const { setting, settings, host } = openTab();
    const row = setting("Web results per question");
    const input = row.querySelector("input")!;
    input.value = "50";
    input.dispatchEvent(new Event("input"));
    await new Promise((r) => setTimeout(r, 0));
    expect(settings.external.count).toBe(5);
    expect(host.saveSettings).not.toHaveBeenCalled();
    expect(input.getAttribute("aria-invalid")).toBe("");
    expect(row.querySelector(".setting-item-description")!.textContent).toMatch(/10/);
    input.value = "8";
    input.dispatchEvent(new Event("input"));
    await new Promise((r) => setTimeout(r, 0));
    expect(settings.external.count).toBe(8);
    expect(settingsSchema.safeParse(settings).success).toBe(true);
  });

  it("shows model fields for the chosen kind and reports the connection test in words", async () => {
    const { tab, setting, settings } = openTab();
    expect(setting("Test connection")).toBeUndefined();
    const kind = setting("Model").querySelector("select")!;
    kind.value = "openai";
    kind.dispatchEvent(new Event("change"));
    await new Promise((r) => setTimeout(r, 0));
    expect(settings.model.kind).toBe("openai");
    const fresh = (name: string) => [...tab.containerEl.querySelectorAll<HTMLElement>(".setting-item")].find((s) => s.querySelector(".setting-item-name")?.textContent === name)!;
    expect(fresh("Base URL")).toBeDefined();
    fresh("Test connection").querySelector("button")!.click();
    await new Promise((r) => setTimeout(r, 0));
    const desc = fresh("Test connection").querySelector(".setting-item-description")!;
    expect(desc.textContent).toBe("Could not use llama: connection refused");
    expect(desc.classList.contains("vault-research-test-failed")).toBe(true);
  });
});
