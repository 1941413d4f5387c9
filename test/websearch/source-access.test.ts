import { describe, expect, it } from "vitest";
import { providerNames } from "../../src/provider-names";
import { defaultSettings } from "../../src/settings";
import { canAsk, providersWhenAllowed } from "../../src/websearch/source-access";
import { sourceHosts } from "../../src/websearch/source-hosts";

const FREE = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"];

describe("what each source needs", () => {
  it("keyless and optional-key sources can always be asked; keyed ones need their key; SearXNG its instance", () => {
    const settings = defaultSettings();
    const none = () => false;
    expect(providerNames.filter((p) => canAsk(p, settings, none))).toEqual(["wikipedia", "hackernews", "arxiv", "github", "stackexchange", "pubmed"]);
    settings.external.searxng.baseUrl = "http://localhost:8888";
    expect(canAsk("searxng", settings, none)).toBe(true);
    expect(canAsk("tavily", settings, (name) => name === "tavily")).toBe(true);
  });

  it("with no key and no instance, allowing web search brings in the free set; with a key it changes nothing", () => {
    const settings = defaultSettings();
    expect(providersWhenAllowed(settings, () => false)).toEqual({ providers: ["brave", ...FREE], added: true });
    expect(providersWhenAllowed(settings, (name) => name === "brave")).toEqual({ providers: ["brave"], added: false });
    settings.external.providers = ["pubmed"];
    expect(providersWhenAllowed(settings, () => false)).toEqual({ providers: ["pubmed"], added: false });
  });
});

describe("where each source's calls go", () => {
  it("names a host for every source, following the settings", () => {
    const settings = defaultSettings();
    settings.external.wikipedia.language = "fr";
    settings.external.searxng.baseUrl = "https://searx.example.net";
    expect(sourceHosts(settings)).toEqual({
      brave: "api.search.brave.com",
      "brave-web": "api.search.brave.com",
      exa: "api.exa.ai",
      wikipedia: "fr.wikipedia.org",
      hackernews: "hn.algolia.com",
      arxiv: "export.arxiv.org",
      github: "api.github.com",
      stackexchange: "api.stackexchange.com",
      pubmed: "eutils.ncbi.nlm.nih.gov",
      searxng: "searx.example.net",
      tavily: "api.tavily.com",
    });
  });
});
