// Read pages' passages weighed by meaning: a whole research run over the sample vault with the
// recorded pages (evals/research/replay/page-reading), searching through the dial with an
// in-process embedder of hashed words at the Embedder port. At level 2 the question is embedded
// once and each read page's passages once, and the trace says the meaning was used; at level 1
// nothing is embedded; a failing embedder leaves the words' choice as it was, and the trace says why.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../../src/cli/dom-parser";
import type { DialLevel } from "../../../src/index/dial/dial-types";
import { VaultSearch } from "../../../src/index/dial/vault-search";
import type { Embedder, EmbedRole } from "../../../src/index/embeddings/embedder";
import type { ResearchRequest, ResearchResult } from "../../../src/research/types";
import { PAGE_READ_LIMITS } from "../../../src/research/stages/page-fetch";
import { MAX_EMBEDDED_PASSAGES } from "../../../src/research/stages/passage-meaning";
import { hashedVector } from "../../llm/embeddings/stand-in-embedding-server";
import { replayFolder, REPO_ROOT } from "../../support/recording-http";
import { sampleVaultHarness, type Harness } from "../../support/research-harness";
import { stringContaining } from "../../support/typed-matchers";

const PAGES_DIR = path.join(REPO_ROOT, "evals/research/replay/page-reading");
const request: ResearchRequest = { question: "How long does Quillsync keep tombstones before compacting them?", mode: "on-weak", providers: ["brave-web"], writeTrace: false, retrievalOnly: true };

interface Call {
  texts: string[];
  role: EmbedRole;
}

function hashingEmbedder(calls: Call[], fail = false): Embedder {
  return {
    name: "test:hashed",
    async embed(texts, role) {
      calls.push({ texts, role });
      if (fail) return { ok: false, error: { kind: "network", message: "Could not reach the embedding server at http://127.0.0.1:9." } };
      const vectors = texts.map((t) => {
        const v = Float32Array.from(hashedVector(t, 64));
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
      return { ok: true, vectors, dimensions: 64 };
    },
  };
}

async function runAt(h: Harness, level: DialLevel, embedder: Embedder): Promise<ResearchResult> {
  const search = new VaultSearch({ index: h.index, notes: h.store, embedder });
  return h.run(request, { readPage: nodePageReader, dial: { search, level, embedder } });
}

const selected = (r: ResearchResult) => r.trace.events.filter((e) => e.type === "passages_selected").map((e) => e.data ?? {});
const keptPassages = (r: ResearchResult) => r.pack.external_evidence.flatMap((row) => row.content_sections.filter((s) => s.fetched).map((s) => `${row.url} ${s.text}`));

describe("read pages' passages weighed by meaning (the dial's embedder, level 2 and above)", () => {
  it("embeds the question once and each read page's passages once, and the trace says the meaning was used", async () => {
    const calls: Call[] = [];
    const h = await sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR) });
    const result = await runAt(h, 2, hashingEmbedder(calls));
    const pages = selected(result);
    expect(pages).toHaveLength(2);
    for (const page of pages) expect(page).toMatchObject({ by_meaning: true });
    const questionCalls = calls.filter((c) => c.role === "query" && c.texts[0] === request.question);
    expect(questionCalls.length).toBeGreaterThanOrEqual(1);
    // The dial embeds the question for its own search too; the pages share one more call for it.
    expect(questionCalls.length).toBeLessThanOrEqual(2);
    const passageCalls = calls.filter((c) => c.role === "document");
    expect(passageCalls).toHaveLength(2);
    for (const c of passageCalls) expect(c.texts.length).toBeLessThanOrEqual(MAX_EMBEDDED_PASSAGES);
    expect(keptPassages(result).join("\n")).toContain("Quillsync keeps each tombstone for 14 days.");
  });

  it("embeds nothing at level 1, and the passages are the words' choice", async () => {
    const calls: Call[] = [];
    const h = await sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR) });
    const dialed = await runAt(h, 1, hashingEmbedder(calls));
    expect(calls).toEqual([]);
    for (const page of selected(dialed)) expect(page).not.toHaveProperty("by_meaning");
    const plain = await (await sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR) })).run(request, { readPage: nodePageReader });
    expect(keptPassages(dialed)).toEqual(keptPassages(plain));
  });

  it("keeps the words' choice when the embedder fails, and the trace says why", async () => {
    const h = await sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR) });
    const failed = await runAt(h, 2, hashingEmbedder([], true));
    for (const page of selected(failed)) expect(page).toMatchObject({ by_meaning: false, meaning_problem: stringContaining("Could not reach the embedding server") });
    const plain = await (await sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR) })).run(request, { readPage: nodePageReader });
    expect(keptPassages(failed)).toEqual(keptPassages(plain));
  });

  it("keeps the words' choice when the embedder is too slow for the stage: passages, page reads and the reason are not lost", async () => {
    let waiting = 0;
    const embedded = hashingEmbedder([]);
    // The question is embedded at once; each page's passages wait until the call is given up on.
    const slow: Embedder = {
      name: embedded.name,
      embed: (texts, role, signal) =>
        role === "query"
          ? embedded.embed(texts, role, signal)
          : new Promise((resolve) => {
              waiting++;
              signal?.addEventListener("abort", () => resolve({ ok: false, error: { kind: "cancelled", message: "The embedding call was cancelled." } }));
            }),
    };
    const h = await sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR) });
    const running = runAt(h, 2, slow);
    for (let i = 0; i < 500 && waiting < 2; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(waiting).toBe(2);
    // Time passes: past what page reading keeps for slow work, then past the stage's limit.
    h.clock.advance(PAGE_READ_LIMITS.stageMs - 1000);
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    h.clock.advance(2000);
    const late = await running;

    expect(late.page_reads?.filter((r) => r.status === "read")).toHaveLength(2);
    expect(selected(late).map((page) => [page.by_meaning, page.meaning_problem])).toEqual([
      [false, "The embedding model did not answer in time for page reading; the passages were chosen by their words."],
      [false, "The embedding model did not answer in time for page reading; the passages were chosen by their words."],
    ]);
    const plain = await (await sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR) })).run(request, { readPage: nodePageReader });
    expect(keptPassages(late)).toEqual(keptPassages(plain));
  });
});
