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
import { defaultSettings, type ExternalMode } from "../../src/settings";
import type { ResearchResult } from "../../src/research/types";
import { renderTraceNote } from "../../src/notes/trace-note";
import { webOutcomeOfTrace, webOutcomeSentence } from "../../src/notes/web-outcome";
import { formatResearchText } from "../../src/cli/research-command";
import { errorExchange, replayFile } from "../support/recording-http";
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
