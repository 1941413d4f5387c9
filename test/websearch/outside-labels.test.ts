// A research run over each new source: every outside row carries `Outside vault · <Name> ·
// ephemeral`, nothing leaves when the run's mode says never, and the trace says which sources
// were asked and why.
import { describe, expect, it } from "vitest";
import { PROVIDER_NAMES } from "../../src/provider-names";
import type { ProviderName } from "../../src/websearch/types";
import { recordingSecrets } from "../support/fake-secrets";
import { replayFile, replayFolder, REPO_ROOT } from "../support/recording-http";
import { sampleVaultHarness, UNKNOWN_QUESTION } from "../support/research-harness";
import { TAVILY_KEY } from "./providers/source-harness";
import path from "node:path";

const recordings: [ProviderName, string][] = [
  ["wikipedia", "wikipedia/search-crdt.json"],
  ["hackernews", "hackernews/search-crdt.json"],
  ["arxiv", "arxiv/query-sequence-crdts.json"],
  ["github", "github/search-sequence-crdts.json"],
  ["stackexchange", "stackexchange/search-y-websocket.json"],
  ["pubmed", "pubmed/search-clinical-notes.json"],
  ["searxng", "searxng/search-crdt.json"],
  ["tavily", "tavily/search-crdt.json"],
];

describe("outside rows from every source", () => {
  for (const [source, file] of recordings) {
    it(`${source}: every outside row reads “Outside vault · ${PROVIDER_NAMES[source].label} · ephemeral”`, async () => {
      const h = await sampleVaultHarness({
        exchanges: replayFile(file),
        secrets: recordingSecrets({ tavily: TAVILY_KEY }),
        settings: (s) => (s.external.searxng.baseUrl = "http://localhost:8888"),
      });
      const result = await h.run({ question: UNKNOWN_QUESTION, mode: "always", providers: [source], writeTrace: false });
      expect(result.pack.external_evidence.length, source).toBeGreaterThan(0);
      for (const row of result.pack.external_evidence) {
        expect(row.label).toBe(`Outside vault · ${PROVIDER_NAMES[source].label} · ephemeral`);
        expect(row.provider).toBe(source);
        expect(row.source_key).toMatch(new RegExp(`^ext:${source}:[0-9a-f]{10}$`));
      }
    });
  }
});

describe("the free sources and the run's consent", () => {
  const free: ProviderName[] = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"];
  const demo = replayFolder(path.join(REPO_ROOT, "fixtures/replay/free-sources-demo"));

  it("mode never: nothing is sent to any of them, and no key is looked up", async () => {
    const h = await sampleVaultHarness({ exchanges: demo });
    await h.run({ question: "What are sequence CRDTs and which papers describe them?", mode: "never", providers: free, writeTrace: false });
    expect(h.http.requests).toEqual([]);
    expect(h.secrets.asked).toEqual([]);
  });

  it("the trace says which sources were asked and why, and only those were asked", async () => {
    const h = await sampleVaultHarness({ exchanges: demo });
    const result = await h.run({ question: "Which papers describe sequence CRDTs?", mode: "always", providers: free, writeTrace: false });
    const routed = result.trace.events.find((e) => e.type === "external_sources_routed");
    expect(routed?.data).toEqual({
      asked: ["arxiv"],
      skipped: ["wikipedia", "hackernews", "github", "stackexchange"],
      reasons: [
        "Wikipedia: not asked — question is not about definitions or background",
        "Hacker News: not asked — question is not about news or opinions",
        "arXiv: question mentions a paper (“papers”)",
        "GitHub: not asked — question is not about code",
        "Stack Exchange: not asked — question is not about code",
      ],
    });
    expect(new Set(h.http.requests.map((r) => new URL(r.url).host))).toEqual(new Set(["export.arxiv.org"]));
    expect(result.trace.events.filter((e) => e.type === "external_provider_request").map((e) => e.data?.provider)).toEqual(result.pack.query_plan.provider_queries.map(() => "arxiv"));
  });
});
