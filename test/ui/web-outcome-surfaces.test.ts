// @vitest-environment happy-dom
// One run, four surfaces: the panel's line under its outside counter, the trace note's, the pack's
// recall note and the CLI's text say the web search's outcome in the same words (notes/web-outcome.ts).
// The panel said "The web search failed: no source answered (Hacker News failed)." where the trace
// note of the same run said "Web search failed: Hacker News did not answer (see Warnings below).",
// and a run stopped mid-search said nothing in either, and "Web search added 0 outside rows." in its recall note.
import { afterEach, describe, expect, it } from "vitest";
import type { WorkspaceLeaf as ObsidianLeaf } from "obsidian";
import { App, Vault, WorkspaceLeaf } from "../stubs/obsidian";
import { ResearchView, type RunDeps } from "../../src/ui/research-view";
import { defaultSettings, type ExternalMode, type ProviderName } from "../../src/settings";
import type { ProgressEvent, ResearchResult } from "../../src/research/types";
import { researchResultJson } from "../../src/cli/json/research-result-json";
import { renderTraceNote } from "../../src/notes/trace-note";
import { webOutcomeOfTrace, webOutcomeSentence } from "../../src/notes/web-outcome";
import { formatResearchText } from "../../src/cli/research-command";
import { errorExchange, replayFile } from "../support/recording-http";
import { recordingSecrets } from "../support/fake-secrets";
import { scriptedModel, type ScriptedModel } from "../support/scripted-model";
import { ANSWERED_QUESTION, FRESHNESS_QUESTION, sampleVaultHarness, type HarnessOptions } from "../support/research-harness";

/** A question Hacker News (news) and Wikipedia (background) both fit. */
const HISTORY_AND_LATEST = "What is the history of Automerge and its latest release?";
const HN_503 = () => [errorExchange("GET", "https://hn.algolia.com/api/v1/search", 503, "<html><body>Service Unavailable</body></html>")];
const WIKIPEDIA_500 = () => [errorExchange("GET", "https://en.wikipedia.org/w/rest.php/v1/search/page", 500, "<html><body>Internal error</body></html>")];

async function runOf(mode: ExternalMode, question: string, options: HarnessOptions, stop?: AbortController): Promise<ResearchResult> {
  const h = await sampleVaultHarness({ ...options, settings: (s) => (s.external.providers = ["hackernews", "wikipedia"]) });
  return h.run({ question, mode, writeTrace: false }, stop ? { signal: stop.signal } : {});
}

/** The panel's turn for `result`, and the text under its outside counter. */
async function panelLine(result: ResearchResult, mode: ExternalMode): Promise<string | null> {
  const settings = defaultSettings();
  settings.external.enabled = true;
  settings.external.defaultMode = mode;
  settings.external.providers = ["hackernews", "wikipedia"];
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const view = new ResearchView(new WorkspaceLeaf(new App({ vault: new Vault() })) as unknown as ObsidianLeaf, {
    settings,
    runResearch: async () => (setTimeout(done, 0), result),
    prepareRun: async () => ({ ok: true, deps: {} as RunDeps }),
  });
  document.body.appendChild(view.containerEl);
  view.load();
  await (view as unknown as { onOpen(): Promise<void> }).onOpen();
  const input = view.contentEl.querySelector<HTMLTextAreaElement>(".vault-research-input")!;
  input.value = result.pack.question;
  input.dispatchEvent(new Event("input"));
  input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  await finished;
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  return view.contentEl.querySelector(".vault-research-outside-outcome")?.textContent ?? null;
}

/** The trace note's line under its outside counter. */
function noteLine(result: ResearchResult): string {
  const lines = renderTraceNote(result.trace).split("\n");
  const counter = lines.findIndex((l) => l.startsWith("Outside vault: "));
  return lines[counter + 2];
}

afterEach(() => {
  document.body.empty();
});

describe("the web search's outcome reads the same on every surface of one run", () => {
  const cases: { name: string; mode: ExternalMode; run: () => Promise<ResearchResult>; says: string }[] = [
    {
      name: "every source failed",
      mode: "always",
      run: () => runOf("always", HISTORY_AND_LATEST, { exchanges: [...HN_503(), ...WIKIPEDIA_500()] }),
      says: "Web search failed: Hacker News answered with a server error; Wikipedia answered with a server error.",
    },
    {
      name: "one failed, the other found results",
      mode: "always",
      run: () => runOf("always", HISTORY_AND_LATEST, { exchanges: [...HN_503(), ...replayFile("wikipedia/search-crdt.json")] }),
      says: "Web search added 5 outside rows from Wikipedia; Hacker News answered with a server error.",
    },
    {
      name: "both answered and found nothing",
      mode: "always",
      run: () => runOf("always", HISTORY_AND_LATEST, { exchanges: [...replayFile("hackernews/empty.json"), ...replayFile("wikipedia/empty.json")] }),
      says: "Web search added no outside rows: Hacker News and Wikipedia answered with nothing to add.",
    },
    {
      name: "stopped by the user before a source answered",
      mode: "always",
      run: () => {
        const stop = new AbortController();
        return runOf("always", FRESHNESS_QUESTION, { exchanges: replayFile("hackernews/empty.json"), httpOptions: { beforeAnswer: () => stop.abort() } }, stop);
      },
      says: "Web search stopped before Hacker News answered.",
    },
    {
      name: "allowed, not needed",
      mode: "on-weak",
      run: () => runOf("on-weak", ANSWERED_QUESTION, {}),
      says: "Nothing left the device: the vault had enough on this, so the web was not searched.",
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const result = await c.run();
      expect(webOutcomeSentence(webOutcomeOfTrace(result.trace))).toBe(c.says);
      expect(await panelLine(result, c.mode)).toBe(c.says);
      expect(noteLine(result)).toMatch(new RegExp(`^${escaped(c.says)}( How each failed is under Warnings below\\.)?$`));
      expect(result.pack.coverage.recall_note).toMatch(new RegExp(` ${escaped(c.says)}$`));
      expect(formatResearchText(result).split("\n")).toContain(`  ${c.says}`);
    });
  }
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// No key set and a key refused were both "could not be used without a valid key" on every surface
// built from the run's own state (the recall note of --json and MCP, the evidence brief, the model's
// prompt, the panel's stage and source lines), while the trace note of the same run, built from its
// trace, said "Brave has no API key set" or "Brave refused the API key": one run, two wordings.
describe("a source with no key, and one whose key was refused, read the same on every surface of one run", () => {
  const BRAVE_401 = JSON.stringify({ type: "ErrorResponse", error: { code: "SUBSCRIPTION_TOKEN_INVALID", status: 401 } });
  const braveRefuses = () =>
    ["https://api.search.brave.com/res/v1/llm/context", "https://api.search.brave.com/res/v1/web/search"].map((url) =>
      errorExchange("GET", url, 401, BRAVE_401, { "content-type": "application/json" }),
    );
  const cases: { name: string; options: () => HarnessOptions; says: string; how: string; sent: boolean }[] = [
    { name: "no key set: nothing was sent", options: () => ({ secrets: recordingSecrets({}) }), says: "Web search failed: Brave has no API key set.", how: "has no API key set", sent: false },
    {
      name: "the key refused (401): the call left",
      options: () => ({ secrets: recordingSecrets({ brave: "BSA-refused-key-0123456789" }), exchanges: braveRefuses() }),
      says: "Web search failed: Brave refused the API key.",
      how: "refused the API key",
      sent: true,
    },
  ];

  /** A run of the current-state question with Brave only: its web outcome is said in the brief and the prompt too. */
  async function braveRun(options: HarnessOptions, model?: ScriptedModel) {
    const h = await sampleVaultHarness({ ...options, ...(model ? { model } : {}), settings: (s) => (s.external.providers = ["brave"]) });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", writeTrace: false });
    return { result, progress: h.progress, requests: h.http.requests.length };
  }

  for (const c of cases) {
    it(c.name, async () => {
      const { result, progress, requests } = await braveRun(c.options());
      expect(requests > 0).toBe(c.sent);
      // Built from the trace: right since 560c426.
      expect(webOutcomeSentence(webOutcomeOfTrace(result.trace))).toBe(c.says);
      expect(noteLine(result)).toBe(`${c.says} How each failed is under Warnings below.`);
      expect(formatResearchText(result).split("\n")).toContain(`  ${c.says}`);
      // Built from the run's state: the recall note (research --json, MCP), the extractive brief.
      expect(result.pack.coverage.recall_note).toMatch(new RegExp(` ${escaped(c.says)}$`));
      expect(researchResultJson(result, {}, undefined).pack.coverage.recall_note).toMatch(new RegExp(` ${escaped(c.says)}$`));
      expect(result.answer?.kind).toBe("extractive");
      expect(result.answer?.text).toContain(c.says);
      // The web stage's progress: Brave's own line, and the stage's closing words.
      const web = progress.filter((e) => e.stage === "external_retrieval");
      // Brave is handed both of the question's queries (as typed, and its keywords): each failure is said.
      expect(web.filter((e) => e.provider === "brave" && e.status === "failed").map((e) => e.detail)).toEqual([c.how, c.how]);
      expect(web.filter((e) => e.provider === undefined && e.status === "failed").map((e) => e.detail)).toEqual([`No web results: Brave ${c.how}`]);
      // The panel, fed that progress: its stage line and the line under its outside counter.
      const panel = await panelOf(result, "always", ["brave"], progress);
      expect(panel.outcome).toBe(c.says);
      expect(panel.webStage).toContain(`No web results: Brave ${c.how}`);
      for (const text of [result.pack.coverage.recall_note, result.answer?.text, renderTraceNote(result.trace), panel.webStage]) expect(text).not.toContain("without a valid key");
    });

    it(`${c.name}: the model's prompt says it in the same words`, async () => {
      const model = scriptedModel(["The vault has no release notes.", "The vault has no release notes."]);
      const { result } = await braveRun(c.options(), model);
      expect(webOutcomeSentence(webOutcomeOfTrace(result.trace))).toBe(c.says);
      const prompt = model.calls[0].messages.map((m) => m.content).join("\n");
      expect(prompt).toContain(c.says);
      expect(prompt).not.toContain("without a valid key");
    });
  }
});

/** The panel's turn for `result`, its progress fed to the panel as the run gave it: the web stage's line and the outside outcome. */
async function panelOf(result: ResearchResult, mode: ExternalMode, providers: ProviderName[], progress: readonly ProgressEvent[]): Promise<{ outcome: string | null; webStage: string }> {
  const settings = defaultSettings();
  settings.external.enabled = true;
  settings.external.defaultMode = mode;
  settings.external.providers = providers;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const view = new ResearchView(new WorkspaceLeaf(new App({ vault: new Vault() })) as unknown as ObsidianLeaf, {
    settings,
    runResearch: async (_request, deps) => {
      for (const e of progress) deps.onProgress?.(e);
      setTimeout(done, 0);
      return result;
    },
    prepareRun: async () => ({ ok: true, deps: {} as RunDeps }),
  });
  document.body.appendChild(view.containerEl);
  view.load();
  await (view as unknown as { onOpen(): Promise<void> }).onOpen();
  const input = view.contentEl.querySelector<HTMLTextAreaElement>(".vault-research-input")!;
  input.value = result.pack.question;
  input.dispatchEvent(new Event("input"));
  input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
  await finished;
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  return {
    outcome: view.contentEl.querySelector(".vault-research-outside-outcome")?.textContent ?? null,
    webStage: view.contentEl.querySelector('.vault-research-stage[data-stage="external_retrieval"]')?.textContent ?? "",
  };
}
