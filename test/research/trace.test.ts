// What a run leaves behind: the trace (its external events, and never a key) and the trace note
// (in the trace folder, never overwriting anything, never indexed as evidence).
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../src/cli/dom-parser";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { VaultIndex } from "../../src/index/vault-index";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { BRAVE_TEST_KEY, EXA_TEST_KEY, recordingSecrets } from "../support/fake-secrets";
import { MemoryNoteStore } from "../support/memory-note-store";
import { errorExchange, replayFolder } from "../support/recording-http";
import { ANSWERED_QUESTION, FRESHNESS_QUESTION, SAMPLE_VAULT_DIR, sampleVaultHarness, UNKNOWN_QUESTION } from "../support/research-harness";
import { stringContaining, stringMatching } from "../support/typed-matchers";

const EXTERNAL_EVENTS = [
  "external_query_built",
  "external_provider_request",
  "external_provider_response",
  "external_result_deduped",
  "external_evidence_selected",
  "external_merge_completed",
];

describe("a run answered by recorded samples (--replay)", () => {
  it("says so in its trace and above the outside rows of its note, and a live run says nothing of it", async () => {
    const h = await sampleVaultHarness();
    const replayed = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak", writeTrace: true }, { replayedFrom: "fixtures/replay/brave-demo" });
    expect(replayed.pack.external_evidence.length).toBeGreaterThan(0);
    expect(replayed.trace.replayed_from).toBe("fixtures/replay/brave-demo");
    const note = await h.store.read(replayed.trace_path!);
    const outside = note.slice(note.indexOf("## Outside vault"), note.indexOf("## Warnings"));
    expect(outside).toContain("> [!note] Recorded sample responses, not a live search");
    expect(outside.indexOf("Recorded sample responses")).toBeLessThan(outside.indexOf("Outside vault ·"));
    const live = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak", writeTrace: true });
    expect(live.trace.replayed_from).toBeUndefined();
    expect(await h.store.read(live.trace_path!)).not.toContain("Recorded sample responses");
  });
});

describe("traces hold the external events", () => {
  it("a run that searched records every external event, in order, with what left and what came back", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" });
    const { trace } = result;
    const types = trace.events.map((e) => e.type);

    for (const type of EXTERNAL_EVENTS) expect(types, type).toContain(type);
    expect(types).not.toContain("external_search_skipped");
    const first = (type: string) => types.indexOf(type);
    expect(first("external_query_built")).toBeLessThan(first("external_provider_request"));
    expect(first("external_provider_request")).toBeLessThan(first("external_provider_response"));
    expect(first("external_provider_response")).toBeLessThan(first("external_evidence_selected"));
    expect(first("external_evidence_selected")).toBeLessThan(first("external_merge_completed"));

    expect(trace.mode).toBe("on-weak");
    expect(trace.providers).toEqual(["brave"]);
    const built = trace.events.filter((e) => e.type === "external_query_built").map((e) => e.data?.query);
    expect(built).toEqual(trace.queries_sent);
    expect(trace.queries_sent).toEqual(result.pack.query_plan.provider_queries);
    const selected = trace.events.filter((e) => e.type === "external_evidence_selected").map((e) => e.data?.key);
    expect(selected).toEqual(result.pack.external_evidence.map((r) => r.source_key));

    // The note's JSON block carries the same trace.
    const parsed = parseTraceNote(h.store.text(result.trace_path!)!);
    expect("trace" in parsed && parsed.trace.events.map((e) => e.type)).toEqual(types);
  });

  it("a question past the providers' 50 words: the trace says the query as it left, and that it was shortened", async () => {
    const h = await sampleVaultHarness();
    // 60 short words fit the plan's 300 characters; the dispatcher sends the first 50.
    const words = Array.from({ length: 60 }, (_, i) => `w${i + 1}`);
    const result = await h.run({ question: `${words.join(" ")} automerge?`, mode: "always" });

    const asked = h.http.requests.map((r) => new URL(r.url)).filter((u) => u.hostname === "api.search.brave.com");
    expect(asked.length).toBeGreaterThan(0);
    const left = asked[0].searchParams.get("q");
    expect(left).toBe(words.slice(0, 50).join(" "));
    expect(result.trace.queries_sent[0]).toBe(left);
    const built = result.trace.events.find((e) => e.type === "external_query_built");
    expect(built?.data).toMatchObject({ query: left, clamps: [stringMatching(/^query shortened to 50 words/)] });
    expect(result.trace.events.find((e) => e.type === "external_provider_request")?.data?.query).toBe(left);
  });

  it("each query built says where it came from: the question as typed, or its keywords with this year added for freshness", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always" });
    const year = new Date(h.clock.now()).getUTCFullYear();
    const built = result.trace.events.filter((e) => e.type === "external_query_built").map((e) => e.data);
    expect(built).toHaveLength(2);
    expect(built[0]).toMatchObject({ query: FRESHNESS_QUESTION, from: "question", why: "the question as typed" });
    expect(built[1]).toMatchObject({ query: stringMatching(new RegExp(` ${year}$`)), from: "question_keywords", year_added: year, why: stringContaining(`“latest”`) });
    expect(built[1]?.why).toContain(`the year ${year} added`);
  });

  it("a question that names its year gets no year added, and one tidied of vault talk says so", async () => {
    const h = await sampleVaultHarness();
    const named = await h.run({ question: "What changed in the latest Automerge release of 2025?", mode: "always" });
    const keywords = named.trace.events.filter((e) => e.type === "external_query_built")[1]?.data;
    expect(keywords).toMatchObject({ from: "question_keywords" });
    expect(keywords).not.toHaveProperty("year_added");
    const tidied = await h.run({ question: "What do my notes say about #automerge sync?", mode: "always" });
    const first = tidied.trace.events.find((e) => e.type === "external_query_built")?.data;
    expect(first?.query).not.toBe("What do my notes say about #automerge sync?");
    expect(first).toMatchObject({ from: "question_tidied" });
  });

  it("a run that did not search records external_search_skipped and nothing that implies a request", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "never" });
    const types = result.trace.events.map((e) => e.type);

    expect(types).toContain("external_search_skipped");
    for (const type of ["external_query_built", "external_provider_request", "external_provider_response", "external_evidence_selected"]) {
      expect(types).not.toContain(type);
    }
    expect(result.trace.queries_sent).toEqual([]);
  });
});

describe("traces hold no secrets", () => {
  it("a distinctive key is sent in the request headers, and appears nowhere in the trace note, the JSON result, the progress events or the request log", async () => {
    const secrets = recordingSecrets({ brave: BRAVE_TEST_KEY, exa: EXA_TEST_KEY });
    // Exa's error echoes the key back, as some proxies and error pages do.
    const exaEcho = errorExchange("POST", "https://api.exa.ai/search", 401, JSON.stringify({ error: `Invalid API key ${EXA_TEST_KEY} for x-api-key` }), { "content-type": "application/json" });
    const h = await sampleVaultHarness({ secrets, exchanges: [...replayFolder(), exaEcho] });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak", providers: ["brave", "exa"] });

    // The premise: both keys really were used, so their absence below means something.
    const sentHeaders = JSON.stringify(h.http.requests.map((r) => r.headers));
    expect(sentHeaders).toContain(BRAVE_TEST_KEY);
    expect(sentHeaders).toContain(EXA_TEST_KEY);
    expect(result.trace.errors.some((e) => e.provider === "exa")).toBe(true);

    const outputs = {
      "trace note": h.store.text(result.trace_path!)!,
      "JSON result": JSON.stringify(result),
      "progress events": JSON.stringify(h.progress),
      "request log": JSON.stringify(h.http.log),
    };
    for (const [name, text] of Object.entries(outputs)) {
      expect(text.length, name).toBeGreaterThan(100);
      expect(text.includes(BRAVE_TEST_KEY), `${name} holds the Brave key`).toBe(false);
      expect(text.includes(EXA_TEST_KEY), `${name} holds the Exa key`).toBe(false);
      // Not even a long prefix of one.
      expect(text.includes(BRAVE_TEST_KEY.slice(0, 12)), `${name} holds part of the Brave key`).toBe(false);
      expect(text.includes(EXA_TEST_KEY.slice(0, 12)), `${name} holds part of the Exa key`).toBe(false);
    }
    // Headers in the log are masked, not dropped.
    const braveEntry = h.http.log.find((e) => e.url.includes("api.search.brave.com"));
    const tokenHeader = Object.entries(braveEntry!.headers).find(([name]) => name.toLowerCase() === "x-subscription-token");
    expect(tokenHeader?.[1]).toBe("***");
  });
});

describe("the trace note", () => {
  it("is written into the trace folder", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: ANSWERED_QUESTION });
    expect(result.trace_path).toMatch(/^Research\/Traces\/[^/]+\.md$/);
    expect(h.store.created).toEqual([result.trace_path]);
    expect(h.store.text(result.trace_path!)).toMatch(/^---\ntype: research-trace\n/);
  });

  it("follows the trace folder setting", async () => {
    const h = await sampleVaultHarness({ settings: (s) => (s.notes.traceFolder = "Runs/Research log") });
    const result = await h.run({ question: ANSWERED_QUESTION });
    expect(result.trace_path).toMatch(/^Runs\/Research log\/[^/]+\.md$/);
  });

  it("never overwrites: two runs of the same question at the same fake time leave two files", async () => {
    const h = await sampleVaultHarness();
    const first = await h.run({ question: ANSWERED_QUESTION });
    const firstText = h.store.text(first.trace_path!);
    const second = await h.run({ question: ANSWERED_QUESTION });

    expect(h.clock.now()).toBe(Date.parse(first.trace.started_at));
    expect(second.trace_path).toBeDefined();
    expect(second.trace_path).not.toBe(first.trace_path);
    expect(h.store.created).toEqual([first.trace_path, second.trace_path]);
    expect(h.store.createCalls).toEqual(h.store.created); // no attempt to write over anything
    expect(h.store.text(first.trace_path!)).toBe(firstText);
  });

  it("never overwrites a note the user already has at that path", async () => {
    const probe = await sampleVaultHarness();
    const wouldBe = (await probe.run({ question: ANSWERED_QUESTION })).trace_path!;

    const store = MemoryNoteStore.fromFolder(SAMPLE_VAULT_DIR);
    await store.create(wouldBe, "my own note, not a trace\n");
    const h = await sampleVaultHarness({ store });
    const result = await h.run({ question: ANSWERED_QUESTION });

    expect(result.trace_path).toBeDefined();
    expect(result.trace_path).not.toBe(wouldBe);
    expect(store.text(wouldBe)).toBe("my own note, not a trace\n");
  });

  it("is not written when the run says so, and a failed write is a warning, not a failed run", async () => {
    const h = await sampleVaultHarness();
    const off = await h.run({ question: ANSWERED_QUESTION, writeTrace: false });
    expect(off.trace_path).toBeUndefined();
    expect(h.store.createCalls).toEqual([]);

    const broken = await sampleVaultHarness();
    broken.store.create = async () => {
      throw new Error("disk full");
    };
    const result = await broken.run({ question: ANSWERED_QUESTION });
    expect(result.trace_path).toBeUndefined();
    expect(result.stop_reason).toBe("enough_evidence");
    expect(result.pack.warnings).toContainEqual({ kind: "trace_not_written", message: stringContaining("disk full") });
  });

  it("is excluded from the index: searching after the run does not find it", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: ANSWERED_QUESTION });
    const tracePath = result.trace_path!;
    // What the CLI and the plugin do after a run: tell the index about the new file, and later resync.
    await h.index.updateFile(h.store, tracePath);
    await h.index.sync(h.store, null);

    expect(h.index.paths()).not.toContain(tracePath);
    const hits = await h.index.search(ANSWERED_QUESTION, h.store, { limit: 50 });
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.map((r) => r.path).filter((p) => p.startsWith("Research/"))).toEqual([]);

    // An index that does not exclude the folder (the setting changed since) knows it by its marks.
    const unguarded = new VaultIndex({ canonicalizeUrl });
    await unguarded.sync(h.store, null);
    expect((await unguarded.search(ANSWERED_QUESTION, h.store, { limit: 50 })).map((r) => r.path)).not.toContain(tracePath);
    // Control: the same words without a trace's marks are found.
    const text = await h.store.read(tracePath);
    unguarded.applyText("Copied/Not a trace.md", text.replace("type: research-trace", "type: copy"), 1, text.length);
    expect((await unguarded.search(ANSWERED_QUESTION, h.store, { limit: 50 })).map((r) => r.path)).toContain("Copied/Not a trace.md");

    // And the next run's evidence holds no trace note either.
    const next = await h.run({ question: ANSWERED_QUESTION, writeTrace: false });
    expect(next.pack.evidence.map((r) => r.note_path).filter((p) => p.startsWith("Research/"))).toEqual([]);
  });
});

/** The part of a trace note between two of its headings: what a reader sees of that section. */
function section(note: string, heading: string, next: string): string {
  return note.slice(note.indexOf(`## ${heading}`), note.indexOf(`## ${next}`));
}

describe("the trace note explains itself to someone who never saw the run", () => {
  it("says a failed source once, in words: not as its pack kind, its trace kind and each query again", async () => {
    const exaDown = errorExchange("POST", "https://api.exa.ai/search", 503, "<html><body>Service Unavailable</body></html>");
    const h = await sampleVaultHarness({ secrets: recordingSecrets({ brave: BRAVE_TEST_KEY, exa: EXA_TEST_KEY }), exchanges: [...replayFolder(), exaDown] });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave", "exa"], writeTrace: true });
    // The premise: Exa failed on both queries, and the pack says it once too.
    expect(result.trace.errors.filter((e) => e.provider === "exa").length).toBeGreaterThan(1);
    expect(result.pack.warnings.filter((w) => w.message.startsWith("Exa failed"))).toHaveLength(1);

    const warnings = section(h.store.text(result.trace_path!)!, "Warnings", "Timeline");
    expect(warnings.split("\n").filter((l) => l.includes("Exa"))).toHaveLength(1);
    expect(warnings).toContain("- Exa failed (");
    expect(warnings).not.toMatch(/provider_|external_retrieval|\*\*/);
  });

  it("does not say vault results are kept when the vault had none and the web it needed failed", async () => {
    const braveDown = errorExchange("GET", "https://api.search.brave.com/res/v1/llm/context", 503, "<html><body>Service Unavailable</body></html>");
    const h = await sampleVaultHarness({ exchanges: [braveDown] });
    const result = await h.run({ question: UNKNOWN_QUESTION, mode: "on-weak", writeTrace: true });
    expect(result.stop_reason).toBe("external_required_failed");
    const warnings = section(h.store.text(result.trace_path!)!, "Warnings", "Timeline");
    expect(warnings).toMatch(/^- External search was needed because the vault has nothing on this, and it failed\. Brave failed \(/m);
    expect(warnings).not.toContain("Vault results are kept");
    expect(warnings.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(1);
  });

  it("says why nothing left the device when the vault had enough, and calls nothing replayed when nothing was asked", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: ANSWERED_QUESTION, mode: "on-weak", writeTrace: true }, { replayedFrom: "fixtures/replay/brave-demo" });
    expect(result.trace.queries_sent).toEqual([]);
    const outside = section(h.store.text(result.trace_path!)!, "Outside vault", "Warnings");
    expect(outside).toContain("Nothing left the device: the vault had enough on this, so the web was not searched.");
    expect(outside).not.toContain("Recorded sample responses");
  });

  it("says why the web was asked, above the queries it sent", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak", writeTrace: true });
    const outside = section(h.store.text(result.trace_path!)!, "Outside vault", "Warnings");
    expect(outside).toMatch(/Why the web was asked: The question asks about the current state \(.*latest.*\); the vault may be out of date, so the web is searched\.\n\nQueries sent:\n- “/);
  });

  it("says under Queries sent where each query came from, as the run built it", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak", writeTrace: true });
    const outside = section(h.store.text(result.trace_path!)!, "Outside vault", "Warnings");
    const [first, second] = result.trace.queries_sent;
    expect(outside).toContain(`- “${first}” — the question as typed\n`);
    expect(outside).toMatch(new RegExp(`- “${second}” — the question's keywords; \\d{4} added because the question asks about the current state \\(“latest”, “what changed”\\)\\n`));
  });

  it("says under an outside row that its page could not be read, and why, as the CLI does", async () => {
    // Brave Web's answer without the one page recording it has: every page the run tries is missing.
    const searchOnly = replayFolder().filter((x) => x.url.includes("api.search.brave.com"));
    const h = await sampleVaultHarness({ exchanges: searchOnly });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave-web"], readPages: 2, writeTrace: true }, { readPage: nodePageReader });
    const skipped = result.trace.events.filter((e) => e.type === "page_fetch" && e.data?.outcome === "skipped");
    expect(skipped.length).toBeGreaterThan(0);

    const outside = section(h.store.text(result.trace_path!)!, "Outside vault", "Warnings");
    for (const e of skipped) {
      const row = outside.slice(outside.indexOf(`\`${String(e.data?.key)}\``));
      expect(row.split("\n")[2]).toMatch(/^\*Page not read: .+\.\*$/);
    }
  });
});
