import { describe, expect, it } from "vitest";
import { providerChoices } from "../../src/ui/composer";

describe("the panel's provider menu", () => {
  it("offers each enabled source alone and, for two or three, all of them together by name", () => {
    expect(providerChoices(["brave", "exa"]).map((c) => c.label)).toEqual(["Brave", "Exa", "Brave + Exa"]);
    expect(providerChoices(["wikipedia"]).map((c) => c.label)).toEqual(["Wikipedia"]);
  });

  it("offers the free set as one choice when it is enabled beside others, and counts a long list", () => {
    const choices = providerChoices(["brave", "wikipedia", "hackernews", "arxiv", "github", "stackexchange"]);
    expect(choices.map((c) => c.label)).toEqual(["Brave", "Wikipedia", "Hacker News", "arXiv", "GitHub", "Stack Exchange", "Free sources", "All 6 sources"]);
    expect(choices.find((c) => c.label === "Free sources")!.providers).toEqual(["wikipedia", "hackernews", "arxiv", "github", "stackexchange"]);
  });

  it("calls the free set by its name when it is all that is enabled", () => {
    const choices = providerChoices(["wikipedia", "hackernews", "arxiv", "github", "stackexchange"]);
    expect(choices.at(-1)).toEqual({ value: "wikipedia,hackernews,arxiv,github,stackexchange", label: "Free sources", providers: ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"] });
  });
});
