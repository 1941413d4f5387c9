// @vitest-environment happy-dom
// The settings tab's Search section: the dial's starting positions, scores, the embedding server
// with what it would receive shown before anything is sent and a button to agree (agreeing again
// after the server changes), the query log switch and its clear button; and issue 13's page
// reading controls.
import { describe, expect, it } from "vitest";
import { App, Setting } from "../stubs/obsidian";
import { embeddingChoice } from "../../src/plugin/embedding-choice";
import { displayedTab, fakeSettingsHost, TAB_VERSIONS } from "../support/settings-tab-harness";
import { defaultSettings } from "../../src/settings";

function openTabIn(version: string, edit: (s: ReturnType<typeof defaultSettings>) => void = () => {}) {
  const app = new App();
  const settings = defaultSettings();
  edit(settings);
  // The plugin's own reading, so the tab and the embedding job agree on what consent means.
  const host = fakeSettingsHost(settings, { embeddingChoice: () => embeddingChoice(settings.search.embedding) });
  const { tab, setting } = displayedTab(app, host, version);
  const desc = (name: string) => setting(name)?.querySelector(".setting-item-description")?.textContent ?? "";
  const button = (name: string) => setting(name)!.querySelector("button")!;
  return { tab, host, settings, setting, desc, button };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function choose(select: HTMLSelectElement, value: string): void {
  select.value = value;
  select.dispatchEvent(new Event("change"));
}

describe.each(TAB_VERSIONS)("the settings tab's Search section, $shown", ({ version }) => {
  const openTab = (edit?: (s: ReturnType<typeof defaultSettings>) => void) => openTabIn(version, edit);

  it("sets where each dial starts and whether scores show", async () => {
    const { setting, settings } = openTab();
    const modal = setting("Search level in the search modal")!.querySelector("select")!;
    expect([...modal.options].map((o) => o.textContent)).toEqual(["1 · Lexical: words only", "2 · Hybrid: + meaning (embeddings)", "3 · Multi-field: + each section's meaning", "4 · Rerank: + the chat model reorders"]);
    choose(modal, "3");
    choose(setting("Search level for research")!.querySelector("select")!, "2");
    setting("Show scores")!.querySelector<HTMLElement>(".checkbox-container")!.click();
    await tick();
    expect(settings.search).toMatchObject({ searchLevel: 3, researchLevel: 2, showScores: true });
  });

  it("with no embedding server, shows nothing to agree to", () => {
    const { setting } = openTab();
    expect(setting("Embedding model")).toBeUndefined();
    expect(setting("Send notes to the embedding server")).toBeUndefined();
  });

  it("says what a chosen server would receive before anything is sent, and stores the agreement only on the button", async () => {
    const { tab, setting, desc, button, settings } = openTab();
    choose(setting("Embedding server")!.querySelector("select")!, "ollama");
    await tick();
    expect(settings.search.embedding.kind).toBe("ollama");
    expect(settings.search.embedding.consentedTo).toBe("");
    expect(desc("Send notes to the embedding server")).toMatch(/^Embedding sends the text of every note .* to http:\/\/localhost:11434 \(nomic-embed-text\)\. That address is this computer\. Nothing is sent until you agree/);
    button("Send notes to the embedding server").click();
    await tick();
    expect(settings.search.embedding.consentedTo).toBe("ollama@http://localhost:11434");
    expect(tab.containerEl.querySelector(".vault-research-embedding-consent .setting-item-description")?.textContent).toMatch(/^Agreed\./);
    button("Send notes to the embedding server").click();
    await tick();
    expect(settings.search.embedding.consentedTo).toBe("");
    expect(desc("Send notes to the embedding server")).toMatch(/Nothing is sent until you agree/);
  });

  it("gives the focus to the row's new button after agreeing or stopping, not to the page's top", async () => {
    const { tab, setting, settings } = openTab((s) => (s.search.embedding.kind = "ollama"));
    document.body.appendChild(tab.containerEl);
    try {
      const agree = setting("Send notes to the embedding server")!.querySelector("button")!;
      agree.focus();
      agree.click();
      await tick();
      expect(settings.search.embedding.consentedTo).not.toBe("");
      const stop = setting("Send notes to the embedding server")!.querySelector("button")!;
      expect(stop.textContent).toBe("Stop embedding");
      expect(document.activeElement).toBe(stop);
      stop.click();
      await tick();
      expect(settings.search.embedding.consentedTo).toBe("");
      expect(document.activeElement).toBe(setting("Send notes to the embedding server")!.querySelector("button"));
    } finally {
      tab.containerEl.remove();
    }
  });

  it("asks again when the server's address changes after agreeing, and saves the address only when the field is left", async () => {
    const { setting, desc, settings, host } = openTab((s) => {
      s.search.embedding.kind = "ollama";
      s.search.embedding.consentedTo = "ollama@http://localhost:11434";
    });
    expect(desc("Send notes to the embedding server")).toMatch(/^Agreed\./);
    const address = setting("Embedding server address")!.querySelector("input")!;
    address.value = "https://embed.example.com";
    address.dispatchEvent(new Event("input"));
    await tick();
    expect(host.saveSettings).not.toHaveBeenCalled();
    const next = setting("Embedding requests per second")!.querySelector("input")!;
    next.focus();
    address.dispatchEvent(new Event("change"));
    await tick();
    expect(settings.search.embedding.baseUrl).toBe("https://embed.example.com");
    // Only the consent line was redrawn: the field the user moved to still has the focus.
    expect(setting("Embedding requests per second")!.querySelector("input")).toBe(next);
    expect(desc("Send notes to the embedding server")).toMatch(/to https:\/\/embed\.example\.com .*another computer: the text leaves this device\. Nothing is sent until you agree/);
    expect(embeddingChoice(settings.search.embedding)).toMatchObject({ consented: false });
  });

  it("says what is missing for an OpenAI-compatible server without a model, and offers no button", async () => {
    const { setting, desc } = openTab((s) => (s.search.embedding.kind = "openai"));
    expect(desc("Send notes to the embedding server")).toBe("Name the embedding model the server should use. Nothing is embedded until then.");
    expect(setting("Send notes to the embedding server")!.querySelector("button")).toBeNull();
    expect(setting("Embedding API key")).toBeDefined();
  });

  it("refuses a request rate outside 0.1 to 50", async () => {
    const { setting, settings } = openTab((s) => (s.search.embedding.kind = "ollama"));
    const input = setting("Embedding requests per second")!.querySelector("input")!;
    input.value = "500";
    input.dispatchEvent(new Event("input"));
    await tick();
    expect(settings.search.embedding.requestsPerSecond).toBe(4);
    input.value = "2";
    input.dispatchEvent(new Event("input"));
    await tick();
    expect(settings.search.embedding.requestsPerSecond).toBe(2);
  });

  it("turns the query log off and clears it on the button, saying so", async () => {
    const { setting, desc, button, settings, host } = openTab();
    setting("Keep a search query log")!.querySelector<HTMLElement>(".checkbox-container")!.click();
    await tick();
    expect(settings.search.queryLog).toBe(false);
    button("Clear the search query log").click();
    await tick();
    expect(host.clearQueryLog).toHaveBeenCalledTimes(1);
    expect(setting("Clear the search query log")!.querySelector("[role='status']")!.textContent).toBe("The search query log is cleared.");
    expect(desc("Clear the search query log")).toBe("Deletes every line logged so far.The search query log is cleared.");
  });

  it("sets how many pages a question reads (0 is off) and whether they are summarized", async () => {
    const { setting, settings } = openTab();
    const pages = setting("Pages to read per question")!.querySelector("select")!;
    expect([...pages.options].map((o) => o.textContent)).toEqual(["Off", "1", "2", "3", "4", "5"]);
    expect(pages.value).toBe("3");
    choose(pages, "0");
    setting("Summarize pages read")!.querySelector<HTMLElement>(".checkbox-container")!.click();
    await tick();
    expect(settings.external).toMatchObject({ readPages: 0, summarizePages: true });
  });
});

describe("the embedding consent row drawn twice at once (1.13)", () => {
  it("is filled anew wherever it is on screen, and a copy taken down leaves the tab's own row filled", async () => {
    const settings = defaultSettings();
    settings.search.embedding.kind = "ollama";
    const { tab, setting } = displayedTab(new App(), fakeSettingsHost(settings, { embeddingChoice: () => embeddingChoice(settings.search.embedding) }));
    // As a settings search result might: the app draws the row a second time, elsewhere, and later takes that copy down.
    const consent = (tab.getSettingDefinitions() as unknown as { items: { name: string; render: (s: Setting) => () => void }[] }[]).flatMap((g) => g.items).find((i) => i.name === "Send notes to the embedding server")!;
    const copy = new Setting(createDiv());
    const takeDown = consent.render(copy);
    copy.controlEl.querySelector("button")!.click();
    await tick();
    expect(settings.search.embedding.consentedTo).toBe("ollama@http://localhost:11434");
    for (const row of [copy.settingEl, setting("Send notes to the embedding server")!]) expect(row.querySelector(".setting-item-description")!.textContent).toMatch(/^Agreed\./);
    takeDown();
    setting("Send notes to the embedding server")!.querySelector("button")!.click();
    await tick();
    expect(settings.search.embedding.consentedTo).toBe("");
    expect(setting("Send notes to the embedding server")!.querySelector(".setting-item-description")!.textContent).toMatch(/Nothing is sent until you agree/);
  });
});
