// @vitest-environment happy-dom
// The settings tab's free sources: one toggle for the free set, switched on for you when web
// search is allowed and no key is set, and the options of the new sources saved only when valid.
import { describe, expect, it } from "vitest";
import { App } from "../stubs/obsidian";
import { PRIVACY_NOTE } from "../../src/ui/settings-tab";
import { displayedTab, fakeSettingsHost, TAB_VERSIONS } from "../support/settings-tab-harness";
import { defaultSettings } from "../../src/settings";
import { typeInto } from "./settings-tab-kit";

const FREE = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"];

function openTabIn(version: string, prepare?: (app: App) => void) {
  const app = new App();
  prepare?.(app);
  const settings = defaultSettings();
  const { tab, setting: row } = displayedTab(app, fakeSettingsHost(settings), version);
  const setting = (name: string) => row(name)!;
  const toggle = async (name: string) => {
    setting(name).querySelector<HTMLElement>(".checkbox-container")!.click();
    await new Promise((r) => setTimeout(r, 0));
  };
  return { tab, settings, setting, toggle };
}

describe.each(TAB_VERSIONS)("free sources in the settings tab, $shown", ({ version }) => {
  const openTab = (prepare?: (app: App) => void) => openTabIn(version, prepare);

  it("one toggle adds the whole free set to the providers, and takes it away again", async () => {
    const { settings, toggle, setting } = openTab();
    expect(setting("Free sources").querySelector(".setting-item-description")!.textContent).toBe("Wikipedia, Hacker News, arXiv, GitHub and Stack Exchange: no key needed. Each question goes only to the sources that fit it.");
    await toggle("Free sources");
    expect(settings.external.providers).toEqual(["brave", ...FREE]);
    await toggle("Free sources");
    expect(settings.external.providers).toEqual(["brave"]);
  });

  it("allowing web search with no key set switches the free set on, and says why", async () => {
    const { settings, toggle, setting } = openTab();
    await toggle("Allow web search");
    expect(settings.external.enabled).toBe(true);
    expect(settings.external.providers).toEqual(["brave", ...FREE]);
    expect(setting("Free sources").querySelector(".setting-item-description")!.textContent).toMatch(/Switched on because no API key is set\.$/);
  });

  it("allowing web search with a Brave key set leaves the providers as they were", async () => {
    const { settings, toggle } = openTab((app) => app.secretStorage.setSecret("vault-research-brave", "BSA-real-key"));
    await toggle("Allow web search");
    expect(settings.external.providers).toEqual(["brave"]);
  });

  it("a Brave secret of only quotes and a line break is no key: allowing web search switches the free set on", async () => {
    const { settings, toggle } = openTab((app) => app.secretStorage.setSecret("vault-research-brave", '""\n'));
    await toggle("Allow web search");
    expect(settings.external.providers).toEqual(["brave", ...FREE]);
  });

  it("lists every source with a description, and names each remote service in the privacy note", () => {
    const { setting } = openTab();
    for (const name of ["Wikipedia", "Hacker News", "arXiv", "GitHub", "Stack Exchange", "PubMed", "SearXNG", "Tavily"]) expect(setting(name), name).toBeDefined();
    const note = PRIVACY_NOTE.join(" ");
    for (const host of ["wikipedia.org", "hn.algolia.com", "export.arxiv.org", "api.github.com", "api.stackexchange.com", "eutils.ncbi.nlm.nih.gov", "api.tavily.com", "api.search.brave.com", "api.exa.ai"]) expect(note).toContain(host);
  });

  it("saves the SearXNG instance, the Wikipedia language and the Stack Exchange site only when valid", async () => {
    const { settings, setting } = openTab();
    const type = (name: string, value: string) => typeInto(setting, name, value);
    expect((await type("SearXNG instance", "ftp://nope")).getAttribute("aria-invalid")).toBe("true");
    expect(settings.external.searxng.baseUrl).toBe("");
    await type("SearXNG instance", "http://localhost:8888/");
    expect(settings.external.searxng.baseUrl).toBe("http://localhost:8888");
    await type("Wikipedia language", "DE");
    expect(settings.external.wikipedia.language).toBe("de");
    await type("Stack Exchange site", "not a site!");
    expect(settings.external.stackexchange.site).toBe("stackoverflow");
  });
});
