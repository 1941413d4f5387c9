// DESIGN invariant 3, the panel's live timeline: every progress text (a stage's detail, a page that
// could not be read, a stage that failed) passes the one secret scrubber with every key the run
// knows. The attacks: a provider whose result URL carries its key JSON-\u-escaped (which its own
// hiding misses and JSON.parse turns back into the key), pages at that URL that fail or redirect
// to a broken address quoting the key, and a model that throws an error quoting its key.
import { describe, expect, it } from "vitest";
import { nodePageReader } from "../../src/cli/dom-parser";
import type { ChatModel } from "../../src/llm/chat-model";
import type { RecordedExchange } from "../../src/websearch/replay";
import { BRAVE_TEST_KEY, recordingSecrets } from "../support/fake-secrets";
import { sampleVaultHarness, ANSWERED_QUESTION, FRESHNESS_QUESTION } from "../support/research-harness";
import { KEYS } from "./hostile-kit";

const BRAVE_WEB_SEARCH = "https://api.search.brave.com/res/v1/web/search";
const MODEL_KEY = KEYS.OPENAI_API_KEY;
const jsonEscaped = (text: string) => Array.from(text, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

/** A Brave Web Search answer (snippets only, so its pages are read) whose result URLs carry the key, \u-escaped in the body text. */
function braveEchoing(urls: string[]): RecordedExchange {
  const body = JSON.stringify({ web: { results: urls.map((url, i) => ({ url, title: `Automerge latest release ${i}`, description: "The latest Automerge release changed the sync protocol and storage." })) } });
  return { method: "GET", url: BRAVE_WEB_SEARCH, status: 200, headers: { "content-type": "application/json" }, body: body.split(BRAVE_TEST_KEY).join(jsonEscaped(BRAVE_TEST_KEY)) };
}

function progressText(progress: { detail: string }[]): string {
  return progress.map((e) => e.detail).join("\n");
}

describe("progress events never carry a key the run knows", () => {
  it("when pages at a URL holding the provider's key fail, redirect to a broken address quoting it, or are not recorded", async () => {
    const failing = `https://news.example.org/fail?k=${BRAVE_TEST_KEY}`;
    const redirecting = `https://blog.example.net/moved?k=${BRAVE_TEST_KEY}`;
    const unrecorded = `https://docs.example.com/missing?k=${BRAVE_TEST_KEY}`;
    const h = await sampleVaultHarness({
      exchanges: [
        braveEchoing([failing, redirecting, unrecorded]),
        { method: "GET", url: failing, status: 500, headers: { "content-type": "text/html" }, body: "<html><head><title>oops</title></head></html>" },
        { method: "GET", url: redirecting, status: 302, headers: { location: `http://[${BRAVE_TEST_KEY}]/` }, body: "" },
      ],
    });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["brave-web"], readPages: 3, writeTrace: false }, { readPage: nodePageReader });
    expect(result.pack.external_evidence.length).toBe(3);
    const skipped = h.progress.filter((e) => e.stage === "read_pages" && e.status === "skipped");
    expect(skipped.length).toBe(3);
    expect(progressText(skipped)).toContain("not a valid web address (http://[[redacted]]/)");
    expect(progressText(h.progress)).not.toContain(BRAVE_TEST_KEY);
    expect(progressText(h.progress)).not.toContain(BRAVE_TEST_KEY.slice(0, 12));
  });

  it("when a model fails with an error that quotes its key", async () => {
    const model: ChatModel = {
      name: "hostile:model",
      complete: async () => {
        throw new Error(`upstream refused key ${MODEL_KEY} (also ${encodeURIComponent(MODEL_KEY)})`);
      },
    };
    const h = await sampleVaultHarness({ model, secrets: recordingSecrets({ openai: MODEL_KEY }) });
    await h.run({ question: "Why did the team pick Automerge instead of Yjs for the field app?", mode: "never", writeTrace: false });
    const failed = h.progress.filter((e) => e.status === "failed");
    expect(failed.length).toBeGreaterThan(0);
    expect(progressText(failed)).toContain("upstream refused key [redacted]");
    expect(progressText(h.progress)).not.toContain(MODEL_KEY);
  });
});

describe("every key the caller holds is known to the run from its start", () => {
  // Held by the caller (the CLI's environment, the plugin's secret storage) but never looked up by
  // this run: it searches no source and calls no model.
  const HELD = KEYS.TAVILY_API_KEY;

  it("so one typed into the question reaches no progress event, no trace, no trace note or its name, and not the result", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: `${ANSWERED_QUESTION} ${HELD}`, mode: "never", writeTrace: true }, { knownSecrets: [HELD] });
    expect(result.trace_path).toBeDefined();
    expect(result.trace.question).toContain("[redacted]");
    const written = h.store.paths().filter((p) => p.startsWith(h.settings.notes.traceFolder));
    expect(written.length).toBe(1);
    const outputs = { progress: progressText(h.progress), result: JSON.stringify(result), names: written.join("\n"), note: h.store.text(written[0]) ?? "" };
    for (const form of [HELD, HELD.slice(0, 10), encodeURIComponent(HELD)]) expect(Object.entries(outputs).filter(([, t]) => t.includes(form)).map(([n]) => n), `found ${form}`).toEqual([]);
  });
});
