// A stop during page reading — while a page is fetched, its passages embedded or summarised by the
// model: the run ends as cancelled during the read pages stage, the stage says stopped, what the stop
// cut short is no failure of the model's, and a page read before the stop keeps its passages.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../../src/cli/dom-parser";
import { VaultSearch } from "../../../src/index/dial/vault-search";
import type { Embedder } from "../../../src/index/embeddings/embedder";
import type { ResearchRequest } from "../../../src/research/types";
import { replayFolder, REPO_ROOT } from "../../support/recording-http";
import { sampleVaultHarness } from "../../support/research-harness";
import { stalledModel } from "../../support/scripted-model";

const PAGES_DIR = path.join(REPO_ROOT, "evals/research/replay/page-reading");
const GUIDE = "https://docs.quillsync.example/guide/compaction/";
const QUESTION = "How long does Quillsync keep tombstones before compacting them?";

const request: ResearchRequest = { question: QUESTION, mode: "on-weak", providers: ["brave-web"], writeTrace: false, readPages: 1 };

describe("Stop during page reading", () => {
  it("while the model summarises a page: cancelled during the stage, no summary failure, the page's passages kept", async () => {
    const controller = new AbortController();
    const model = stalledModel(() => controller.abort());
    const h = await sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR), model, settings: (s) => (s.external.summarizePages = true) });
    const result = await h.run(request, { readPage: nodePageReader, signal: controller.signal });

    expect(model.calls).toHaveLength(1);
    expect(result.stop_reason).toBe("cancelled");
    expect(result.pack.warnings.find((w) => w.kind === "cancelled")?.message).toBe("The run was cancelled during the read pages stage.");
    expect(result.trace.errors).toEqual([]);
    expect(h.progress.filter((p) => p.stage === "read_pages").at(-1)?.status).toBe("stopped");
    expect(result.page_reads?.map((r) => [r.url, r.status, r.summarised])).toEqual([[GUIDE, "read", undefined]]);
    const guide = result.pack.external_evidence.find((r) => r.url === GUIDE)!;
    expect(guide.content_sections.some((s) => s.role === "external_text" && s.fetched)).toBe(true);
    expect(guide.content_sections.some((s) => s.role === "external_summary")).toBe(false);
  });

  it("while a page is fetched: cancelled during the stage, and the page is said stopped, not skipped", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness({
      exchanges: replayFolder(PAGES_DIR),
      httpOptions: {
        beforeAnswer: (req) => {
          if (req.url !== GUIDE) return;
          controller.abort();
          return new Promise<void>((resolve) => req.signal?.addEventListener("abort", () => resolve()));
        },
      },
    });
    const result = await h.run(request, { readPage: nodePageReader, signal: controller.signal });

    expect(result.stop_reason).toBe("cancelled");
    expect(result.pack.warnings.find((w) => w.kind === "cancelled")?.message).toBe("The run was cancelled during the read pages stage.");
    expect(result.page_reads).toEqual([expect.objectContaining({ url: GUIDE, status: "skipped", reason: { kind: "cancelled" } })]);
    const said = h.progress.filter((p) => p.stage === "read_pages").map((p) => p.status);
    expect(said).toEqual(["started", "started", "stopped", "stopped"]);
    expect(result.trace.errors).toEqual([]);
  });
});

describe("Stop while a read page's passages are embedded", () => {
  it("is no problem of the embedding model's: the trace says the meaning was stopped, and the words' passages stay", async () => {
    const controller = new AbortController();
    const h = await sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR) });
    const embedder: Embedder = {
      name: "test:stopped",
      embed: (texts, role, signal) => {
        // The dial's own search, and the question, are answered; a read page's passages are stopped.
        const reading = h.progress.some((e) => e.stage === "read_pages");
        if (role === "query" || !reading) return Promise.resolve({ ok: true, vectors: texts.map(() => Float32Array.from([1, 0])), dimensions: 2 });
        return new Promise((resolve) => {
          signal?.addEventListener("abort", () => resolve({ ok: false, error: { kind: "cancelled", message: "The embedding call was cancelled." } }));
          controller.abort();
        });
      },
    };
    const search = new VaultSearch({ index: h.index, notes: h.store, embedder });
    const result = await h.run({ ...request, retrievalOnly: true }, { readPage: nodePageReader, dial: { search, level: 2, embedder }, signal: controller.signal });

    expect(result.stop_reason).toBe("cancelled");
    const selected = result.trace.events.filter((e) => e.type === "passages_selected").map((e) => e.data);
    expect(selected).toEqual([expect.objectContaining({ by_meaning: false, meaning_stopped: "cancelled" })]);
    expect(selected[0]).not.toHaveProperty("meaning_problem");
    const guide = result.pack.external_evidence.find((r) => r.url === GUIDE)!;
    expect(guide.content_sections.some((s) => s.role === "external_text" && s.fetched)).toBe(true);
  });
});
