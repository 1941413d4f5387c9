// Page reading inside a whole research run over the sample vault: the real index, runner, Brave
// Web Search parser, fetch guard, Defuddle reader and passage ranking; recorded pages (our own
// writing, evals/research/replay/page-reading) at the Http port.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../../src/cli/dom-parser";
import { researchPackSchema } from "../../../src/evidence/research-pack";
import type { HttpRequest } from "../../../src/ports";
import { PageCache } from "../../../src/research/page-cache";
import { RUN_LIMITS } from "../../../src/research/run-limits";
import { PAGE_READ_LIMITS } from "../../../src/research/stages/page-fetch";
import { buildSynthesisPrompt } from "../../../src/research/stages/synthesis-prompt";
import type { ProgressEvent, ResearchRequest, ResearchResult } from "../../../src/research/types";
import type { RecordedExchange } from "../../../src/websearch/replay";
import { replayFolder, REPO_ROOT } from "../../support/recording-http";
import { FRESHNESS_QUESTION, sampleVaultHarness, type HarnessOptions } from "../../support/research-harness";
import { keysInPrompt, scriptedModel, stalledModel } from "../../support/scripted-model";
import { anyNumber, objectContaining } from "../../support/typed-matchers";

const PAGES_DIR = path.join(REPO_ROOT, "evals/research/replay/page-reading");
const GUIDE = "https://docs.quillsync.example/guide/compaction/";
const FORUM = "https://community.quillsync.example/t/compaction-question/881";
const PDF = "https://papers.example.edu/quillsync-design.pdf";
const QUESTION = "How long does Quillsync keep tombstones before compacting them?";
const ANSWER = "Quillsync keeps each tombstone for 14 days.";

const request = (extra: Partial<ResearchRequest> = {}): ResearchRequest => ({ question: QUESTION, mode: "on-weak", providers: ["brave-web"], writeTrace: false, ...extra });

async function harness(options: HarnessOptions = {}) {
  return sampleVaultHarness({ exchanges: replayFolder(PAGES_DIR), ...options });
}

/** Lets pending promise callbacks and timers run, until `done` or a bound. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

const pageRequests = (requests: HttpRequest[]) => requests.filter((r) => !r.url.startsWith("https://api.search.brave.com/"));

describe("reading the pages behind outside results", () => {
  it("puts the answering sentence into the synthesis prompt when the snippet does not hold it", async () => {
    const prompts: string[] = [];
    const model = scriptedModel([(req) => (prompts.push(req.messages[0].content), `Fourteen days, from outside the vault [${keysInPrompt(req, "ext")[0]}].`)]);
    const h = await harness({ model });
    const result = await h.run(request(), { readPage: nodePageReader });

    const guide = result.pack.external_evidence.find((r) => r.url === GUIDE)!;
    const snippets = guide.content_sections.filter((s) => !s.fetched).map((s) => s.text).join(" ");
    expect(snippets).not.toContain("14 days");
    expect(prompts[0]).toContain(ANSWER);
    expect(prompts[0]).toContain("Page passage (§ Tombstones and deleted text)");
    expect(result.answer).toMatchObject({ kind: "model", verified: true });
  });

  it("does not, with page reading off: the same question's prompt lacks the answer and nothing is fetched", async () => {
    const h = await harness();
    const result = await h.run(request({ readPages: 0, retrievalOnly: true }), { readPage: nodePageReader });
    expect(buildSynthesisPrompt(result.pack).user).not.toContain(ANSWER);
    expect(pageRequests(h.http.requests)).toEqual([]);
    expect(result.page_reads).toBeUndefined();
  });

  it("reads the top three rows without page text, at most four at a time, and says why a page was not read", async () => {
    const h = await harness();
    const result = await h.run(request({ retrievalOnly: true }), { readPage: nodePageReader });
    expect(() => researchPackSchema.parse(result.pack)).not.toThrow();
    const reads = result.page_reads ?? [];
    expect(reads).toHaveLength(3);
    expect(reads.map((r) => r.url)).not.toContain(PDF);
    expect(pageRequests(h.http.requests).map((r) => r.url)).not.toContain(PDF);
    expect(reads.find((r) => r.url === GUIDE)).toMatchObject({ status: "read", kind: "html", passages_found: 6 });
    expect(reads.find((r) => r.url === FORUM)).toMatchObject({ status: "skipped", reason: { kind: "unusable", problem: { kind: "no_readable_text" } }, passages_kept: 0 });
    expect(h.progress.some((e) => e.stage === "read_pages" && e.status === "skipped" && e.detail.startsWith("Did not read community.quillsync.example"))).toBe(true);
    expect(h.progress.find((e) => e.stage === "read_pages" && e.status === "partial")?.detail).toBe("2 pages read, 7 passages kept; 1 not read");
  });

  it("keeps passages as external_text marked fetched, with offsets and heading path, and the label unchanged", async () => {
    const h = await harness();
    const result = await h.run(request({ retrievalOnly: true }), { readPage: nodePageReader });
    const guide = result.pack.external_evidence.find((r) => r.url === GUIDE)!;
    const passages = guide.content_sections.filter((s) => s.fetched);
    expect(passages.length).toBeGreaterThan(0);
    for (const p of passages) {
      expect(p).toMatchObject({ role: "external_text", fetched: true, start: anyNumber(), end: anyNumber() });
      expect(p.end! - p.start!).toBe(p.text.length - (p.truncated ? 1 : 0));
    }
    const starts = passages.map((p) => p.start!);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(passages.some((p) => p.text.includes(ANSWER))).toBe(true);
    expect(guide.label).toBe("Outside vault · Brave · ephemeral");
    expect(guide.retrieval.signals.find((s) => s.name === "page_read")).toMatchObject({ weight: 0 });
  });

  it("holds the budgets: all outside text within the token budget, each page within its share, no read row trimmed", async () => {
    const h = await harness({ settings: (s) => (s.external.tokenBudget = 1024) });
    const result = await h.run(request({ retrievalOnly: true }), { readPage: nodePageReader });
    const outside = result.pack.external_evidence.flatMap((r) => r.content_sections).reduce((n, s) => n + s.text.length, 0);
    expect(outside).toBeLessThanOrEqual(1024 * 4);
    for (const read of result.page_reads ?? []) {
      expect(read.chars).toBeLessThanOrEqual(read.budget_chars);
      const row = result.pack.external_evidence.find((r) => r.source_key === read.source_key)!;
      expect(row.content_sections.filter((s) => s.fetched).reduce((n, s) => n + s.text.length, 0)).toBe(read.chars);
    }
    const wide = await (await harness()).run(request({ retrievalOnly: true }), { readPage: nodePageReader });
    const prompt = buildSynthesisPrompt(wide.pack);
    for (const read of wide.page_reads ?? []) expect(prompt.trimmed).not.toContain(read.source_key);
  });

  it("answers a follow-up from the page cache instead of fetching again", async () => {
    const h = await harness();
    const pageCache = new PageCache(h.clock);
    await h.run(request(), { readPage: nodePageReader, pageCache });
    const before = pageRequests(h.http.requests).length;
    const follow = await h.run(request({ question: "Which Quillsync setting changes how many days tombstones are kept?", history: [QUESTION] }), { readPage: nodePageReader, pageCache });
    const again = pageRequests(h.http.requests).slice(before).map((r) => r.url);
    expect(again).not.toContain(GUIDE);
    expect(follow.page_reads?.find((r) => r.url === GUIDE)).toMatchObject({ status: "cached" });
    expect(follow.trace.events.find((e) => e.type === "page_fetch" && e.data?.url === GUIDE)?.data).toMatchObject({ outcome: "cached" });
    expect(pageCache.hits).toBeGreaterThan(0);
  });

  it("records page_fetch, page_extract and passages_selected per page in the trace, with counts, sizes and time", async () => {
    const h = await harness();
    const result = await h.run(request({ retrievalOnly: true }), { readPage: nodePageReader });
    const of = (type: string) => result.trace.events.filter((e) => e.type === type).map((e) => e.data ?? {});
    expect(of("page_fetch")).toHaveLength(3);
    expect(of("page_fetch").find((d) => d.url === GUIDE)).toMatchObject({ outcome: "fetched", bytes: anyNumber(), ms: anyNumber() });
    expect(of("page_extract").find((d) => d.outcome === "skipped")).toMatchObject({ reason: { kind: "unusable", problem: { kind: "no_readable_text" } } });
    const selected = of("passages_selected");
    expect(selected).toHaveLength(2);
    for (const d of selected) expect(d).toMatchObject({ found: anyNumber(), kept: anyNumber(), chars: anyNumber(), budget_chars: anyNumber() });
    expect(result.trace.timings_ms.read_pages).toBeGreaterThanOrEqual(0);
  });

  it("says first what became of a page not read and why, so the trace note's timeline cell (240 characters) keeps it", async () => {
    const local = "http://127.0.0.1:8080/admin";
    const exchanges: RecordedExchange[] = [...replayFolder(PAGES_DIR).filter((e) => !e.url.startsWith("https://api.search.brave.com/")), searchAnswer([local, FORUM])];
    const h = await sampleVaultHarness({ exchanges });
    const result = await h.run(request({ retrievalOnly: true, writeTrace: true }), { readPage: nodePageReader });
    const rows = h.store.text(result.trace_path!)!.split("\n").filter((l) => /^\| \d+ \| page_(fetch|extract) \|/.test(l));
    const cell = (type: string, outcome: string) => rows.find((l) => l.includes(`| ${type} | outcome: ${outcome};`));
    // Refused at the fetch: the words, then the address and key, the reason as data last.
    expect(cell("page_fetch", "skipped")).toMatch(/\| outcome: skipped; message: The address is 127\.0\.0\.1[^|]*never fetched\.; url: http:\/\/127\.0\.0\.1:8080\/admin; key: ext:/);
    // Fetched, and no text in it: the extract's event says so in words before its reason.
    expect(cell("page_extract", "skipped")).toMatch(/\| outcome: skipped; message: The page has almost no text of its own[^|]*JavaScript[^|]*; key: ext:[^;]+; reason: \{"kind":"unusable"/);
    expect(cell("page_fetch", "fetched")).toMatch(/\| outcome: fetched; bytes: \d+; url: https:\/\/community/);
  });

  it("writes nothing into the vault, trace note aside", async () => {
    const h = await harness();
    await h.run(request(), { readPage: nodePageReader });
    expect(h.store.createCalls).toEqual([]);
    await h.run(request({ writeTrace: true }), { readPage: nodePageReader });
    expect(h.store.created).toHaveLength(1);
    expect(h.store.created[0].startsWith(h.settings.notes.traceFolder)).toBe(true);
  });

  it("does not read pages whose provider sent page text (Brave LLM Context), nor without a page reader", async () => {
    const demo = await sampleVaultHarness();
    const result = await demo.run({ question: FRESHNESS_QUESTION, mode: "on-weak", writeTrace: false }, { readPage: nodePageReader });
    expect(pageRequests(demo.http.requests)).toEqual([]);
    expect(result.page_reads).toBeUndefined();
    expect(demo.progress).toContainEqual(objectContaining({ stage: "read_pages", status: "skipped", detail: "Every outside row came with page text from its provider" }));

    const bare = await harness();
    await bare.run(request());
    expect(pageRequests(bare.http.requests)).toEqual([]);
  });

  it("never fetches a page the vault already holds: the duplicate of a note is folded before reading", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave-web"], writeTrace: false, retrievalOnly: true }, { readPage: nodePageReader });
    expect(result.pack.evidence.find((r) => r.note_path === "Reading/Automerge - Hello (getting started).md")?.also_found_by).toContain("brave-web");
    const fetched = pageRequests(h.http.requests).map((r) => r.url);
    expect(fetched).not.toContain("https://automerge.org/docs/hello/");
    expect(fetched).toContain("https://automerge.org/blog/automerge-2/");
  });
});

/** A Brave Web Search answer with these result URLs (snippets only). */
function searchAnswer(urls: string[]): RecordedExchange {
  const results = urls.map((url, i) => ({ title: `Result ${i + 1} on Quillsync tombstones`, url, description: `Quillsync compaction, result ${i + 1}.`, type: "search_result" }));
  return { method: "GET", url: "https://api.search.brave.com/res/v1/web/search", status: 200, headers: { "content-type": "application/json" }, body: { type: "search", web: { type: "search", results } } };
}

/** A recorded page answering GET `url`. */
const pageAt = (url: string, body: string): RecordedExchange => ({ method: "GET", url, status: 200, headers: { "content-type": "text/html" }, body });

const article = (n: number) => `<!doctype html><html><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1><p>${"Quillsync keeps tombstones for a while before compacting them. ".repeat(8)}</p></article></body></html>`;

describe("page reading's bounds and guard", () => {
  it("refuses a result on this machine or the local network, asking it nothing, and reads the rest", async () => {
    const urls = ["http://127.0.0.1:8080/admin", "http://192.168.1.1/", "https://ok.example.org/a"];
    const exchanges: RecordedExchange[] = [searchAnswer(urls), ...urls.map((url) => pageAt(url, article(1)))];
    const h = await sampleVaultHarness({ exchanges });
    const result = await h.run(request({ retrievalOnly: true }), { readPage: nodePageReader });
    expect(pageRequests(h.http.requests).map((r) => r.url)).toEqual(["https://ok.example.org/a"]);
    const refused = (result.page_reads ?? []).filter((r) => r.status === "skipped");
    expect(refused.map((r) => r.reason)).toEqual([
      { kind: "refused", refusal: objectContaining({ kind: "blocked_address", range: "loopback" }) },
      { kind: "refused", refusal: objectContaining({ kind: "blocked_address", range: "private" }) },
    ]);
    expect(refused[0].message).toContain("pages on this device or a local network are never fetched");
  });

  it("fetches at most four pages at a time and reads at most five", async () => {
    const urls = Array.from({ length: 6 }, (_, i) => `https://p${i}.example.org/`);
    let inFlight = 0;
    let most = 0;
    const exchanges: RecordedExchange[] = [searchAnswer(urls), ...urls.map((url, i) => pageAt(url, article(i)))];
    const h = await sampleVaultHarness({
      exchanges,
      httpOptions: {
        beforeAnswer: async (req) => {
          if (req.url.startsWith("https://api.search.brave.com/")) return;
          inFlight++;
          most = Math.max(most, inFlight);
          await new Promise((r) => setTimeout(r, 20));
          inFlight--;
        },
      },
    });
    const result = await h.run(request({ readPages: 5, count: 6, retrievalOnly: true }), { readPage: nodePageReader });
    expect(result.page_reads).toHaveLength(5);
    expect(most).toBeLessThanOrEqual(PAGE_READ_LIMITS.concurrency);
    expect(most).toBeGreaterThan(1);
  });

  it("gives up on a page past its time limit and goes on with the others and the snippets", async () => {
    const urls = ["https://slow.example.org/", "https://fast.example.org/"];
    const exchanges: RecordedExchange[] = [searchAnswer(urls), ...urls.map((url, i) => pageAt(url, article(i)))];
    const h = await sampleVaultHarness({
      exchanges,
      httpOptions: {
        beforeAnswer: (req) => {
          if (!req.url.startsWith("https://slow.")) return;
          return new Promise<void>((resolve) => {
            // The one fake clock moves past the limit once the fast page has been read.
            const waiting = setInterval(() => {
              if (!h.progress.some((e) => e.detail.startsWith("Read fast.example.org"))) return;
              clearInterval(waiting);
              h.clock.advance(PAGE_READ_LIMITS.pageMs + 1);
            }, 5);
            req.signal?.addEventListener("abort", () => resolve());
          });
        },
      },
    });
    const result = await h.run(request({ retrievalOnly: true }), { readPage: nodePageReader });
    expect(result.page_reads?.find((r) => r.url === urls[0])).toMatchObject({ status: "skipped", reason: { kind: "time_limit" } });
    expect(result.page_reads?.find((r) => r.url === urls[1])).toMatchObject({ status: "read" });
    expect(result.stop_reason).toBe("retrieval_only");
  });

  it("adds the model's page summary beside the passages when asked, never instead of them", async () => {
    const summaries: string[] = [];
    const model = scriptedModel([
      ...Array.from({ length: 2 }, () => (req: { messages: { content: string }[] }) => (summaries.push(req.messages[0].content), "The guide says tombstones are kept for two weeks.")),
      (req) => `Two weeks [${keysInPrompt(req, "ext")[0]}].`,
    ]);
    const h = await harness({ model, settings: (s) => (s.external.summarizePages = true) });
    const result = await h.run(request(), { readPage: nodePageReader });
    const guide = result.pack.external_evidence.find((r) => r.url === GUIDE)!;
    expect(guide.content_sections.find((s) => s.role === "external_summary" && s.fetched)?.text).toBe("The guide says tombstones are kept for two weeks.");
    expect(guide.content_sections.some((s) => s.role === "external_text" && s.fetched)).toBe(true);
    expect(summaries[0]).toContain("<<<outside_vault_text");
    expect(model.calls[0].system).toMatch(/untrusted web content/);
  });

  it("a clock set back before the pages are read: a summary that never comes is given up on within the run's time, and the passages stay (the stage's limit threw them all away)", async () => {
    const model = stalledModel();
    const h = await harness({ model, settings: (s) => (s.external.summarizePages = true) });
    const onProgress = (e: ProgressEvent) => {
      h.progress.push(e);
      if (e.stage !== "normalize") return;
      // Ten seconds of the run's budget are left once outside rows are chosen; then a time sync steps the clock back an hour.
      if (e.status === "started") h.clock.advance(RUN_LIMITS.totalMs - 10_000);
      else h.clock.set(h.clock.now() - 3_600_000);
    };
    let result: ResearchResult | undefined;
    void h.run(request({ readPages: 1, retrievalOnly: true }), { readPage: nodePageReader, onProgress }).then((r) => (result = r));
    await until(() => model.calls.length > 0);
    // Past what the run had left for the summary, short of the stage's own end...
    h.clock.advance(10_000 - RUN_LIMITS.runEndMarginMs + 1);
    await until(() => result !== undefined);
    // ...and past that too, where the old count gave the summary its whole time.
    if (result === undefined) h.clock.advance(RUN_LIMITS.runEndMarginMs);
    await until(() => result !== undefined);

    expect(model.calls).toHaveLength(1);
    expect(result?.page_reads?.map((r) => [r.url, r.status])).toEqual([[GUIDE, "read"]]);
    expect(result?.page_reads?.[0].passages_kept).toBeGreaterThan(0);
    expect(result?.trace.errors.map((e) => `${e.stage} ${e.kind}`)).toEqual(["read_pages summary_failed"]);
  });
});
