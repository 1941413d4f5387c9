import { describe, expect, it } from "vitest";
import { providerNames } from "../../src/provider-names";
import { describeRoute, readQuestion, routeQuestion } from "../../src/websearch/routing";
import type { ProviderName } from "../../src/websearch/types";

const FREE: ProviderName[] = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange", "pubmed"];
const asked = (question: string, candidates: ProviderName[] = FREE): ProviderName[] =>
  routeQuestion(question, candidates).decisions.filter((d) => d.ask).map((d) => d.source);

describe("routing by question type", () => {
  it("code and errors go to GitHub and Stack Exchange", () => {
    expect(asked("TypeError: doc.getText is not a function when I call it from y-websocket")).toEqual(["github", "stackexchange"]);
    expect(asked("Which npm library should I use for a collaborative editor?")).toEqual(["github", "stackexchange"]);
  });

  it("names and units with a capital inside, and dates written with dots, are not code", () => {
    for (const question of ["Who founded eBay?", "How many kWh does a fridge use?", "Is iCloud safe?", "What happened in Berlin on 09.11.1989?"]) {
      expect(readQuestion(question).topics, question).toEqual([]);
    }
    expect(asked("What is the pH of blood?")).toEqual(["wikipedia"]);
    expect(asked("How do mRNA vaccines work?")).toEqual(["pubmed"]);
    expect(asked("Is the new iPhone worth it?")).toEqual(["hackernews"]);
    // What code looks like still is.
    for (const cue of ["useEffect", "getElementById", "isNaN", "3.1.0", "v2.0.14", "22.04.3"]) {
      expect(readQuestion(`why does ${cue} behave so`).evidence.code, cue).toEqual({ says: "question looks like code", cue });
    }
  });

  it("papers and science go to arXiv; medicine to PubMed; a paper about either to both", () => {
    expect(asked("Is there a proof that this consensus algorithm terminates?")).toEqual(["arxiv"]);
    expect(asked("Do vaccines reduce infection in elderly patients?")).toEqual(["pubmed"]);
    expect(asked("Which studies compare them?")).toEqual(["arxiv", "pubmed"]);
  });

  it("news and what people think go to Hacker News; definitions and background to Wikipedia", () => {
    expect(asked("What do developers think of local-first sync?")).toEqual(["hackernews"]);
    expect(asked("Who was Ada Lovelace?")).toEqual(["wikipedia"]);
    expect(asked("history of operational transformation")).toEqual(["wikipedia"]);
  });

  it("a question of many kinds goes to every source that fits it", () => {
    expect(asked("What are sequence CRDTs, which papers and libraries implement them, and what do developers think of them?")).toEqual(["wikipedia", "hackernews", "arxiv", "github", "stackexchange", "pubmed"]);
  });

  it("SearXNG and the paid providers take every question", () => {
    const general: ProviderName[] = ["brave", "brave-web", "exa", "tavily", "searxng"];
    expect(asked("Who was Ada Lovelace?", [...general, "github"])).toEqual(general);
    for (const source of general) expect(routeQuestion("anything", [source]).decisions[0].reason).toEqual({ kind: "takes_every_question" });
  });

  it("when nothing enabled fits, every enabled source is asked rather than none", () => {
    const { decisions } = routeQuestion("good pizza dough hydration", ["github", "arxiv"]);
    expect(decisions.map((d) => [d.source, d.ask, d.reason.kind])).toEqual([
      ["github", true, "nothing_fit_better"],
      ["arxiv", true, "nothing_fit_better"],
    ]);
  });

  it("a question of search operators only goes to no keyword source: it would search the operator as text", () => {
    const { decisions } = routeQuestion("site:github.com", [...FREE, "brave"]);
    expect(decisions.filter((d) => d.ask).map((d) => d.source)).toEqual(["brave"]);
    expect(decisions[0]).toEqual({ source: "wikipedia", ask: false, reason: { kind: "only_operators", operators: ["site:github.com"] } });
    expect(describeRoute(decisions[0])).toBe("Wikipedia: not asked — the question is only search operators (“site:github.com”), and it searches for words");
    // Not even when nothing else is enabled; a word beside the operator is a question again.
    expect(asked("site:github.com intitle:crdt")).toEqual([]);
    expect(asked("site:example.org pizza dough")).toEqual(FREE);
  });

  it("keeps each reason as data and says it in words", () => {
    const { decisions } = routeQuestion("Which papers describe sequence CRDTs?", ["arxiv", "github", "brave"]);
    expect(decisions[0]).toEqual({ source: "arxiv", ask: true, reason: { kind: "fits_topic", topic: "papers", says: "question mentions a paper", cue: "papers" } });
    expect(decisions.map(describeRoute)).toEqual([
      "arXiv: question mentions a paper (“papers”)",
      "GitHub: not asked — question is not about code",
      "Brave: takes every question",
    ]);
  });

  it("reads topics in a stable order and names the words that showed them", () => {
    expect(readQuestion("latest release of the Rust library?")).toEqual({
      topics: ["code", "news"],
      evidence: { code: { says: "question is about programming", cue: "Rust" }, news: { says: "question asks what is new", cue: "latest" } },
    });
  });

  it("has a decision for every provider name", () => {
    const { decisions } = routeQuestion("what is a monad?", providerNames);
    expect(decisions.map((d) => d.source)).toEqual(providerNames);
    for (const d of decisions) expect(describeRoute(d)).toMatch(/^\S.*: /);
  });
});
