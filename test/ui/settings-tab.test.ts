// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { App, type SettingTab as StandInSettingTab } from "../stubs/obsidian";
import { PRIVACY_NOTE } from "../../src/ui/settings-tab";
import { displayedTab, fakeSettingsHost, shownRows, TAB_VERSIONS } from "../support/settings-tab-harness";
import { defaultSettings, settingsSchema, type Settings } from "../../src/settings";
import { typeInto } from "./settings-tab-kit";

function openTabIn(version: string) {
  const app = new App();
  const settings = defaultSettings();
  const saved: string[] = [];
  const host = fakeSettingsHost(settings, {
    saveSettings: vi.fn(async () => void saved.push(JSON.stringify(settings))),
    testModelConnection: vi.fn(async () => ({ ok: false, message: "Could not use llama: connection refused" })),
  });
  const { tab, setting: row, reopen } = displayedTab(app, host, version);
  const setting = (name: string) => row(name)!;
  return { app, tab, host, settings, saved, setting, reopen };
}

describe.each(TAB_VERSIONS)("the settings tab, $shown", ({ version }) => {
  const openTab = () => openTabIn(version);

  it("opens with the privacy note and external search off", () => {
    const { tab, setting } = openTab();
    expect([...tab.containerEl.querySelectorAll(".vault-research-privacy p")].map((p) => p.textContent)).toEqual(PRIVACY_NOTE);
    expect(setting("Allow web search").querySelector(".checkbox-container")!.classList.contains("is-enabled")).toBe(false);
  });

  it("keeps only the secret's id in settings, never the key", async () => {
    const { app, tab, settings, saved, reopen } = openTab();
    app.secretStorage.setSecret("my-brave", "BSA-very-secret");
    reopen();
    // The first secret picker is Brave's.
    const select = tab.containerEl.querySelector(".secret-component select") as HTMLSelectElement;
    select.value = "my-brave";
    select.dispatchEvent(new Event("change"));
    await Promise.resolve();
    expect(settings.external.brave.secretId).toBe("my-brave");
    expect(saved.join("\n")).not.toContain("BSA-very-secret");
  });

  // Secret storage takes any id of lowercase letters, digits and dashes, which an Exa key (a UUID) is:
  // a key pasted where the secret's name goes was saved into data.json, which sync and backups carry.
  it("never saves a key chosen as a secret's id: says where the key goes, without repeating it, and keeps the id in use", async () => {
    const EXA_KEY = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b";
    const ANOTHER_EXA_KEY = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d";
    const { app, settings, saved, host, setting, reopen } = openTab();
    for (const key of [EXA_KEY, ANOTHER_EXA_KEY]) app.secretStorage.setSecret(key, "what was typed as its value");
    reopen();
    for (const [name, key] of [["Exa API key", EXA_KEY], ["Brave API key", ANOTHER_EXA_KEY]] as const) {
      const select = setting(name).querySelector(".secret-component select") as HTMLSelectElement;
      select.value = key;
      select.dispatchEvent(new Event("change"));
      await new Promise((r) => setTimeout(r, 0));
      const line = setting(name).querySelector("[role='status']")!.textContent;
      expect(line, name).toMatch(/looks like an API key.*not saved.*secret storage/i);
      expect(line, name).not.toContain(key);
      expect(select.value, name).toBe(name === "Exa API key" ? "vault-research-exa" : "vault-research-brave");
    }
    expect(settings.external.exa.secretId).toBe("vault-research-exa");
    expect(settings.external.brave.secretId).toBe("vault-research-brave");
    expect(host.saveSettings).not.toHaveBeenCalled();
    expect(saved.join("\n")).not.toMatch(/0f1e2d3c|9a8b7c6d/);
    // A name is taken again, a long one beginning as xAI's keys do too, and the line is cleared.
    for (const id of ["my-exa", "xai-api-key-for-vault-research"]) {
      app.secretStorage.setSecret(id, EXA_KEY);
      reopen();
      const select = setting("Exa API key").querySelector(".secret-component select") as HTMLSelectElement;
      select.value = id;
      select.dispatchEvent(new Event("change"));
      await new Promise((r) => setTimeout(r, 0));
      expect(settings.external.exa.secretId).toBe(id);
      expect(setting("Exa API key").querySelector("[role='status']")!.textContent).toBe("");
    }
  });

  // A save per keystroke: a good value's save that ends after the next keystroke was refused cleared
  // that refusal, and the field kept showing a value the settings never took, marked as fine.
  it("a save that ends late does not clear the refusal of the value typed after it", async () => {
    const { setting, settings, host } = openTab();
    const saves: Array<() => void> = [];
    host.saveSettings.mockImplementation(() => new Promise<void>((done) => saves.push(done)));
    const row = (name: string) => setting(name);
    const line = (name: string) => row(name).querySelector("[role='status']")!.textContent;
    const type = (name: string, value: string) => {
      const input = row(name).querySelector("input")!;
      input.value = value;
      input.dispatchEvent(new Event("input"));
      return input;
    };
    type("Brave base URL", "https://proxy.example/brave");
    const input = type("Brave base URL", "https://proxy.example/brave?");
    await new Promise((r) => setTimeout(r, 0));
    expect(line("Brave base URL")).toMatch(/without \?query/);
    for (const done of saves) done();
    await new Promise((r) => setTimeout(r, 0));
    expect(settings.external.brave.baseUrl).toBe("https://proxy.example/brave");
    expect(line("Brave base URL")).toMatch(/without \?query/);
    expect(input.getAttribute("aria-invalid")).toBe("true");
    // And a number, typed in the field's unit.
    saves.length = 0;
    type("Web search timeout (seconds)", "30");
    type("Web search timeout (seconds)", "300");
    await new Promise((r) => setTimeout(r, 0));
    for (const done of saves) done();
    await new Promise((r) => setTimeout(r, 0));
    expect(settings.external.timeoutMs).toBe(30_000);
    expect(line("Web search timeout (seconds)")).toBe("Enter 120 or less.");
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
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(row.querySelector(".setting-item-description")!.textContent).toMatch(/10/);
    input.value = "8";
    input.dispatchEvent(new Event("input"));
    await new Promise((r) => setTimeout(r, 0));
    expect(settings.external.count).toBe(8);
    expect(settingsSchema.safeParse(settings).success).toBe(true);
  });

  it("says what a refused number should be in the field's own unit, and keeps the good value", async () => {
    const { setting, settings, host } = openTab();
    const type = (name: string, value: string) => typeInto(setting, name, value);
    const desc = (name: string) => setting(name).querySelector(".setting-item-description")!.textContent;
    // The field is in seconds; the limit is 120 s, stored as 120,000 ms.
    expect((await type("Web search timeout (seconds)", "500")).getAttribute("aria-invalid")).toBe("true");
    expect(desc("Web search timeout (seconds)")).toBe("After this, the answer uses what your vault has.Enter 120 or less.");
    expect(setting("Web search timeout (seconds)").querySelector("[role='status']")!.textContent).toBe("Enter 120 or less.");
    await type("Web search timeout (seconds)", "0.2");
    expect(desc("Web search timeout (seconds)")).toMatch(/Enter 1 or more\.$/);
    expect(settings.external.timeoutMs).toBe(15_000);
    await type("Web results per question", "2.5");
    expect(desc("Web results per question")).toMatch(/Enter a whole number\.$/);
    for (const bad of ["", "NaN", "1e400"]) {
      await type("Web results per question", bad);
      expect(desc("Web results per question"), bad).toMatch(/Enter a number\.$/);
    }
    await type("Web results per question", "-1");
    expect(desc("Web results per question")).toMatch(/Enter 1 or more\.$/);
    expect(settings.external.count).toBe(5);
    expect(host.saveSettings).not.toHaveBeenCalled();
    await type("Web search timeout (seconds)", "30");
    expect(settings.external.timeoutMs).toBe(30_000);
    expect(desc("Web search timeout (seconds)")).toBe("After this, the answer uses what your vault has.");
  });

  it("ties each field to its row's words, and says a refused value in a live line made before it, once per new problem", async () => {
    const { setting } = openTab();
    const row = setting("Web search timeout (seconds)");
    const input = row.querySelector("input")!;
    const words = row.querySelector(".setting-item-description")!;
    expect(input.getAttribute("aria-describedby")).toBe(words.id);
    expect(words.id).not.toBe("");
    const line = words.querySelector("[role='status']")!;
    expect(line.textContent).toBe("");
    await typeInto(setting, "Web search timeout (seconds)", "500");
    expect(row.querySelector("[role='status']")).toBe(line);
    expect(line.textContent).toBe("Enter 120 or less.");
    // The same problem at the next keystroke is not written again (it would be read out again).
    const said = line.firstChild;
    await typeInto(setting, "Web search timeout (seconds)", "5000");
    expect(line.firstChild).toBe(said);
    await typeInto(setting, "Web search timeout (seconds)", "30");
    expect(line.textContent).toBe("");
    expect(input.hasAttribute("aria-invalid")).toBe(false);
    // A toggle and a list are described by their rows' words too.
    for (const name of ["Allow web search", "Freshness"]) {
      const control = setting(name).querySelector("input, select")!;
      expect(control.getAttribute("aria-describedby"), name).toBe(setting(name).querySelector(".setting-item-description")!.id);
    }
  });

  it("never saves a base URL holding a key, says where a key goes, and keeps the address it had", async () => {
    const { setting, settings, saved } = openTab();
    const input = await typeInto(setting, "Brave base URL", "https://me:BSA-typed-into-the-address-0123@proxy.example");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(setting("Brave base URL").querySelector(".setting-item-description")!.textContent).toMatch(/without a user name or password \(a key goes in secret storage/);
    await typeInto(setting, "Exa base URL", "https://proxy.example/exa?apiKey=exa-typed-into-the-query-0123");
    expect(settings.external.brave.baseUrl).toBe("https://api.search.brave.com");
    expect(settings.external.exa.baseUrl).toBe("https://api.exa.ai");
    expect(saved.join("\n")).not.toMatch(/typed-into/);
  });

  it("never saves a SearXNG password in the address, says where it goes, and takes the user name alone", async () => {
    const { setting, settings, saved } = openTab();
    const input = await typeInto(setting, "SearXNG instance", "https://alice:searx-typed-into-the-address@search.example.net");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(setting("SearXNG instance").querySelector(".setting-item-description")!.textContent).toMatch(/\.No password in the address: it would be saved in the settings file\./);
    expect(settings.external.searxng.baseUrl).toBe("");
    expect(saved.join("\n")).not.toMatch(/typed-into/);
    await typeInto(setting, "SearXNG instance", "https://alice@search.example.net/");
    expect(settings.external.searxng.baseUrl).toBe("https://alice@search.example.net");
    expect(setting("SearXNG password")).toBeTruthy();
  });

  it("writes a toggle into the settings in use after data.json was read again (Sync), not into the old ones", async () => {
    const { setting, host, settings } = openTab();
    // What the plugin does when data.json changes on disk: the settings object is replaced.
    (host as { settings: Settings }).settings = structuredClone(host.settings);
    setting("Match word forms").querySelector<HTMLElement>(".checkbox-container")!.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(host.settings.index.stemming).toBe(false);
    expect(settings.index.stemming).toBe(true);
    expect(host.saveSettings).toHaveBeenCalled();
  });

  it("stores folders in the writer's spelling, and refuses one that climbs out of the vault, saying why", async () => {
    const { setting, settings } = openTab();
    const type = (name: string, value: string) => typeInto(setting, name, value);
    await type("Trace folder", "./AI Traces\\Runs/");
    expect(settings.notes.traceFolder).toBe("AI Traces/Runs");
    await type("Sources folder", "Research//Clipped");
    expect(settings.notes.sourcesFolder).toBe("Research/Clipped");
    await type("Excluded folders", "./Archive, Daily\\, Archive/");
    expect(settings.index.excludedFolders).toEqual(["Archive", "Daily"]);
    const climbing = await type("Trace folder", "../Elsewhere");
    expect(settings.notes.traceFolder).toBe("AI Traces/Runs");
    expect(climbing.getAttribute("aria-invalid")).toBe("true");
    expect(setting("Trace folder").querySelector(".setting-item-description")!.textContent).toMatch(/climbs out of the vault/);
    const excluded = await type("Excluded folders", "Archive, ../Elsewhere");
    expect(settings.index.excludedFolders).toEqual(["Archive", "Daily"]);
    expect(excluded.getAttribute("aria-invalid")).toBe("true");
    expect(settingsSchema.safeParse(settings).success).toBe(true);
  });

  it("never saves a key pasted into the model's name, and says where it goes", async () => {
    const { setting, settings, saved, tab } = openTab();
    const kind = setting("Model").querySelector("select")!;
    kind.value = "openai";
    kind.dispatchEvent(new Event("change"));
    await new Promise((r) => setTimeout(r, 0));
    const fresh = (name: string) => shownRows(tab.containerEl).find((s) => s.querySelector(".setting-item-name")?.textContent === name)!;
    const input = await typeInto(fresh, "Model name", "sk-proj-pasted-into-the-name-0123");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(fresh("Model name").querySelector(".setting-item-description")!.textContent).toMatch(/looks like an API key, not a model name/);
    expect(settings.model.model).toBe("");
    expect(saved.join("\n")).not.toContain("pasted-into-the-name");
  });

  it("refuses a sources folder inside the trace folder, which is never searched, from either field, saying why", async () => {
    const { setting, settings, host } = openTab();
    const desc = (name: string) => setting(name).querySelector(".setting-item-description")!.textContent;
    const sources = await typeInto(setting, "Sources folder", "Research/Traces/Web");
    expect(sources.getAttribute("aria-invalid")).toBe("true");
    expect(desc("Sources folder")).toBe(
      'Where web pages you add to the vault go.The sources folder "Research/Traces/Web" would be inside the trace folder "Research/Traces", which is never searched: pages you add to the vault would not be found.',
    );
    // The trace folder moved over the sources folder is the same clash.
    await typeInto(setting, "Trace folder", "/Research/");
    expect(desc("Trace folder")).toMatch(/The sources folder "Research\/Sources" would be inside the trace folder "Research"/);
    expect(settings.notes).toMatchObject({ traceFolder: "Research/Traces", sourcesFolder: "Research/Sources" });
    expect(host.saveSettings).not.toHaveBeenCalled();
    // Traces kept inside the sources folder are fine: the sources stay searched.
    await typeInto(setting, "Trace folder", "Research/Sources/Runs");
    expect(settings.notes.traceFolder).toBe("Research/Sources/Runs");
    expect(desc("Trace folder")).toBe("Where trace notes go.");
  });

  it("keeps the focus on the control the keyboard used when a choice draws rows anew, following a provider that moves", async () => {
    const { tab, settings } = openTab();
    document.body.appendChild(tab.containerEl);
    const fresh = (name: string) => shownRows(tab.containerEl).find((s) => s.querySelector(".setting-item-name")?.textContent === name)!;
    try {
      // The model's kind chosen with the arrow keys: the list changes (and the rows below with it) at each press.
      const kind = fresh("Model").querySelector("select")!;
      kind.focus();
      kind.value = "openai";
      kind.dispatchEvent(new Event("change"));
      await new Promise((r) => setTimeout(r, 0));
      expect(settings.model.kind).toBe("openai");
      expect(document.activeElement).toBe(fresh("Model").querySelector("select"));
      // A provider switched on moves to the end of the ones asked; the focus goes with it.
      const wikipedia = fresh("Wikipedia").querySelector<HTMLElement>("input[type='checkbox']")!;
      wikipedia.focus();
      fresh("Wikipedia").querySelector<HTMLElement>(".checkbox-container")!.click();
      await new Promise((r) => setTimeout(r, 0));
      expect(settings.external.providers).toEqual(["brave", "wikipedia"]);
      expect(document.activeElement).toBe(fresh("Wikipedia").querySelector("input[type='checkbox']"));
      // Its arrow moves it first: it has no arrow there, so its switch has the focus.
      fresh("Wikipedia").querySelector<HTMLElement>(".clickable-icon")!.focus();
      fresh("Wikipedia").querySelector<HTMLElement>(".clickable-icon")!.click();
      await new Promise((r) => setTimeout(r, 0));
      expect(settings.external.providers).toEqual(["wikipedia", "brave"]);
      expect(document.activeElement).toBe(fresh("Wikipedia").querySelector("input[type='checkbox']"));
    } finally {
      tab.containerEl.remove();
    }
  });

  it("shows model fields for the chosen kind and reports the connection test in words", async () => {
    const { tab, setting, settings } = openTab();
    expect(setting("Test connection")).toBeUndefined();
    const kind = setting("Model").querySelector("select")!;
    kind.value = "openai";
    kind.dispatchEvent(new Event("change"));
    await new Promise((r) => setTimeout(r, 0));
    expect(settings.model.kind).toBe("openai");
    const fresh = (name: string) => shownRows(tab.containerEl).find((s) => s.querySelector(".setting-item-name")?.textContent === name)!;
    expect(fresh("Base URL")).toBeDefined();
    fresh("Test connection").querySelector("button")!.click();
    await new Promise((r) => setTimeout(r, 0));
    const outcome = fresh("Test connection").querySelector(".setting-item-description [role='status']")!;
    expect(outcome.textContent).toBe("Could not use llama: connection refused");
    expect(outcome.classList.contains("vault-research-test-failed")).toBe(true);
  });

  it("keeps the focus on a button while its work runs, runs it once however often it is pressed, and says the outcome in a live region", async () => {
    let answer: (outcome: { ok: boolean; message: string }) => void = () => {};
    const { tab, host, settings, setting, reopen } = openTab();
    settings.model.kind = "openai";
    const testConnection = vi.fn(() => new Promise<{ ok: boolean; message: string }>((resolve) => (answer = resolve)));
    host.testModelConnection = testConnection;
    reopen();
    document.body.appendChild(tab.containerEl);
    try {
      const test = setting("Test connection").querySelector("button")!;
      const status = setting("Test connection").querySelector(".setting-item-description [role='status']")!;
      expect(status.textContent).toBe("");
      test.focus();
      test.click();
      test.click();
      expect(status.textContent).toBe("Testing…");
      expect(test.getAttribute("aria-disabled")).toBe("true");
      expect(document.activeElement).toBe(test);
      answer({ ok: true, message: "The model answered." });
      await new Promise((r) => setTimeout(r, 0));
      expect(testConnection).toHaveBeenCalledTimes(1);
      expect(status.textContent).toBe("The model answered.");
      expect(test.hasAttribute("aria-disabled")).toBe(false);
      expect(document.activeElement).toBe(test);
    } finally {
      tab.containerEl.remove();
    }
  });
});

/** Every row the definitions give, with the group it is in (what Obsidian's settings search indexes). */
function definedRows(tab: { getSettingDefinitions(): unknown[] }) {
  return (tab.getSettingDefinitions() as { heading: string; items: { name: string; desc?: string; aliases?: string[]; visible?: boolean | (() => boolean) }[] }[]).flatMap((group) =>
    group.items.map((item) => ({ ...item, heading: group.heading, shown: typeof item.visible === "function" ? item.visible() : item.visible !== false })),
  );
}

describe("the settings tab in Obsidian's settings search (1.13)", () => {
  it("defines every row it shows, under the same headings, in both ways of drawing it", () => {
    for (const kind of ["none", "openai", "anthropic"] as const) {
      const settings = defaultSettings();
      settings.model.kind = kind;
      settings.search.embedding.kind = kind === "none" ? "none" : "ollama";
      const drawn = TAB_VERSIONS.map(({ version }) => shownRows(displayedTab(new App(), fakeSettingsHost(settings), version).tab.containerEl).map((row) => row.querySelector(".setting-item-name")!.textContent));
      const { tab } = displayedTab(new App(), fakeSettingsHost(settings));
      const defined = definedRows(tab);
      const headings = [...new Set(defined.map((row) => row.heading))];
      // What the screen shows, heading by heading.
      const expected = headings.flatMap((heading) => [heading, ...defined.filter((row) => row.heading === heading && row.shown).map((row) => row.name)]);
      expect(drawn[0], kind).toEqual(expected);
      expect(drawn[1], kind).toEqual(expected);
    }
  });

  it("keeps rows hidden by the settings in the definitions, out of sight, and shows them when the settings change", async () => {
    const { tab, setting, settings } = openTabIn(TAB_VERSIONS[0].version);
    expect(definedRows(tab).find((row) => row.name === "Test connection")).toMatchObject({ shown: false });
    const kind = setting("Model").querySelector("select")!;
    kind.value = "anthropic";
    kind.dispatchEvent(new Event("change"));
    await new Promise((r) => setTimeout(r, 0));
    expect(settings.model.kind).toBe("anthropic");
    expect(definedRows(tab).find((row) => row.name === "Test connection")).toMatchObject({ shown: true });
    const shown = shownRows(tab.containerEl).map((row) => row.querySelector(".setting-item-name")!.textContent);
    expect(shown).toEqual(expect.arrayContaining(["Model name", "Model API key", "Test connection"]));
    expect(shown).not.toContain("Base URL");
  });

  it("is found by the words people search for, not only by each row's name; a row out of sight is not", () => {
    const settings = defaultSettings();
    const { tab } = displayedTab(new App(), fakeSettingsHost(settings));
    // As the app's search matches: the name, the description and the other words given for a shown row.
    const found = (query: string) =>
      definedRows(tab)
        .filter((row) => row.shown && [row.name, row.desc ?? "", ...(row.aliases ?? [])].some((words) => words.toLowerCase().includes(query)))
        .map((row) => row.name);
    expect(found("privacy")).toEqual(["What leaves this device"]);
    expect(found("api key")).toEqual(["Brave API key", "Exa API key", "GitHub token", "Tavily API key"]);
    expect(found("hybrid")).toEqual(["Search level in the search modal", "Search level for research"]);
    settings.model.kind = "openai";
    expect(found("api key")).toContain("Model API key");
  });

  it("puts the providers in their new order on the rows already drawn, where the app keeps them", async () => {
    const settings = defaultSettings();
    settings.external.providers = ["brave", "wikipedia"];
    const { tab, setting } = displayedTab(new App(), fakeSettingsHost(settings));
    // An app that keeps the rows it drew when the definitions change only in what they say: the
    // stand-in app's update() (Obsidian 1.13's), not the plugin's, is what changes here.
    (tab as unknown as StandInSettingTab).update = () => {};
    const before = shownRows(tab.containerEl);
    document.body.appendChild(tab.containerEl);
    const up = setting("Wikipedia")!.querySelector<HTMLElement>(".clickable-icon")!;
    up.focus();
    up.click();
    await new Promise((r) => setTimeout(r, 0));
    expect(settings.external.providers).toEqual(["wikipedia", "brave"]);
    // The focus went with Wikipedia to its new place, not to Brave, which now sits where it was.
    expect(setting("Wikipedia")!.contains(document.activeElement)).toBe(true);
    const after = shownRows(tab.containerEl);
    expect(after).toHaveLength(before.length);
    after.forEach((row, i) => expect(row).toBe(before[i]));
    const names = after.map((row) => row.querySelector(".setting-item-name")!.textContent);
    expect(names.indexOf("Wikipedia")).toBeLessThan(names.indexOf("Brave"));
    expect(setting("Wikipedia")!.querySelector(".clickable-icon")).toBeNull();
    expect(setting("Brave")!.querySelector(".clickable-icon")).not.toBeNull();
  });
});
