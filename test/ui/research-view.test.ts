// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp, WorkspaceLeaf as ObsidianLeaf } from "obsidian";
import { App, MarkdownView, notices, Vault, WorkspaceLeaf } from "../stubs/obsidian";
import { AskQuestionModal, forgetUnsentQuestion } from "../../src/ui/ask-modal";
import { ERROR_WITH_KEY_NOT_SHOWN, KEPT_IN_ASK_BOX, KEPT_IN_BOX, KEY_NOT_SHOWN, ResearchView, UNVERIFIED_SENTENCE, type ResearchPanelHost, type RunDeps, type RunResearch } from "../../src/ui/research-view";
import { STEP_PAUSE_MS } from "../../src/ui/run-status";
import { defaultSettings, type Settings } from "../../src/settings";
import type { ResearchPack } from "../../src/evidence/research-pack";
import type { ProgressEvent, ResearchDeps, ResearchRequest, ResearchResult, ResearchTrace } from "../../src/research/types";
import type { NoteStore } from "../../src/ports";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";

const crdt = vaultRow("Concepts/CRDT.md", "CRDT", [{ heading: "Merging", text: "A CRDT merges edits from many devices without a server." }]);
crdt.retrieval.matched_terms = ["crdt", "merges"];
const sync = vaultRow("Projects/Sync.md", "Sync plan", [{ heading: "", text: "Sync runs over the local network." }]);
const release = outsideRow("brave", "https://automerge.org/blog/automerge-3/", "Automerge 3.0", '<b>Lower</b> memory <script>alert(1)</script>', { published_at: "2025-08-01" });

function trace(errors: ResearchTrace["errors"] = []): ResearchTrace {
  return { schema: "research_trace.v1", run_id: "r", started_at: "", question: "", mode: "never", providers: [], freshness: "any", queries_sent: [], stop_reason: "enough_evidence", timings_ms: {}, events: [], errors, pack: pack("q", []) };
}

/** The trace of a run allowed the web that sent its query: `errors` are the sources that failed. */
function searchedTrace(errors: ResearchTrace["errors"] = []): ResearchTrace {
  return { ...trace(errors), mode: "always", providers: ["brave"], queries_sent: ["latest automerge"] };
}

function result(p: ResearchPack, text: string | null, extra: Partial<ResearchResult> = {}): ResearchResult {
  return {
    pack: p,
    ...(text === null ? {} : { answer: { text, kind: "model" as const, verified: true, model: "test-model" } }),
    stop_reason: "enough_evidence",
    trace: trace(),
    ...extra,
  };
}

interface Panel {
  view: ResearchView;
  app: App;
  calls: { request: ResearchRequest; deps: ResearchDeps }[];
  el: HTMLElement;
  type(text: string): void;
  press(key: string, options?: KeyboardEventInit): void;
  settled(): Promise<void>;
}

async function openPanel(run: RunResearch, options: { settings?: (s: Settings) => void; host?: Partial<ResearchPanelHost> } = {}): Promise<Panel> {
  const app = new App({ vault: new Vault() });
  const settings = defaultSettings();
  options.settings?.(settings);
  const calls: Panel["calls"] = [];
  const pending: Promise<unknown>[] = [];
  const host: ResearchPanelHost = {
    settings,
    runResearch: (request, deps) => {
      calls.push({ request, deps });
      const p = run(request, deps);
      pending.push(p.catch(() => {}));
      return p;
    },
    prepareRun: async () => ({ ok: true, deps: {} as RunDeps }),
    ...options.host,
  };
  const leaf = new WorkspaceLeaf(app);
  const view = new ResearchView(leaf as unknown as ObsidianLeaf, host);
  document.body.appendChild(view.containerEl);
  view.load();
  await (view as unknown as { onOpen(): Promise<void> }).onOpen();
  const el = view.contentEl;
  const input = () => el.querySelector<HTMLTextAreaElement>(".vault-research-input")!;
  return {
    view,
    app,
    calls,
    el,
    type: (text) => {
      input().value = text;
      input().dispatchEvent(new Event("input"));
    },
    press: (key, init = {}) => input().dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true, ...init })),
    settled: async () => {
      for (let i = 0; i < 5; i++) {
        await Promise.all(pending);
        await new Promise((r) => setTimeout(r, 0));
      }
    },
  };
}

const texts = (root: HTMLElement, selector: string) => [...root.querySelectorAll(selector)].map((e) => e.textContent);

beforeEach(() => {
  notices.length = 0;
});
afterEach(() => {
  document.body.empty();
  vi.restoreAllMocks();
});

describe("the research panel", () => {
  it("asks a vault question on Enter, streams the stages and shows the answer with chips and vault evidence", async () => {
    const panel = await openPanel(async (request, deps) => {
      const stage = (stage: ProgressEvent["stage"], detail: string) => deps.onProgress?.({ stage, status: "done", detail, at: 1 });
      stage("plan", "3 terms");
      stage("local_retrieval", "2 notes matched");
      return result(pack(request.question, [crdt, sync]), `CRDTs merge without a server [${crdt.source_key}].`);
    });
    panel.type("How do CRDTs merge?");
    panel.press("Enter", { shiftKey: true });
    expect(panel.calls).toHaveLength(0);
    panel.press("Enter");
    await panel.settled();

    expect(panel.calls[0].request).toMatchObject({ question: "How do CRDTs merge?", history: [], mode: "never" });
    expect(texts(panel.el, ".vault-research-stage-title")).toEqual(["Planning", "Searching vault"]);
    expect(texts(panel.el, ".vault-research-question")).toEqual(["How do CRDTs merge?"]);
    expect(panel.el.querySelector(".vault-research-answer.is-verified")).not.toBeNull();
    panel.app.vault.seed("Concepts/CRDT.md", "# CRDT\n\n## Merging\n");
    const chip = panel.el.querySelector<HTMLElement>(".vault-research-chip-vault")!;
    chip.click();
    expect(panel.app.workspace.openedLinks.map((l) => l.linktext)).toEqual(["Concepts/CRDT.md#Merging"]);
    expect(texts(panel.el, ".vault-research-counter")).toEqual(["Vault evidence: 2 rows"]);
    expect(panel.el.querySelector(".vault-research-evidence-group.is-outside")).toBeNull();
    expect(panel.el.querySelector(".vault-research-input")!.getAttribute("value") ?? "").toBe("");
  });

  it("leaves a pasted API key off the screen: the turn's heading says a key was not shown, and the refusal offers Open settings", async () => {
    const key = "sk-proj-4fT9xQ2mZ8vL1cB7nR3wK6yH0";
    const panel = await openPanel(async (request) => {
      const { refuseKeyAsQuestion } = await import("../../src/research/key-in-question");
      refuseKeyAsQuestion(request.question);
      throw new Error("the run must refuse a key before this");
    });
    panel.type(key);
    panel.press("Enter");
    await panel.settled();
    expect(texts(panel.el, ".vault-research-question")).toEqual([KEY_NOT_SHOWN]);
    expect(panel.el.textContent).not.toContain(key);
    expect(panel.el.textContent).toContain("looks like an API key");
  });

  it("shows outside rows apart, labelled and counted, with web text as text", async () => {
    const panel = await openPanel(async (request) => {
      const p = pack(request.question, [crdt], [release]);
      p.coverage.external_by_provider = [{ key: "brave", count: 1 }];
      return result(p, `Version 3 cut memory [${release.source_key}].`);
    }, { settings: (s) => (s.external.enabled = true) });
    const mode = panel.el.querySelector<HTMLSelectElement>(".vault-research-mode")!;
    mode.value = "always";
    mode.dispatchEvent(new Event("change"));
    panel.type("What changed in the latest Automerge release?");
    panel.press("Enter");
    await panel.settled();

    expect(panel.calls[0].request).toMatchObject({ mode: "always", providers: ["brave"], freshness: "any" });
    expect(texts(panel.el, ".vault-research-counter")).toEqual(["Vault evidence: 1 row", "Outside vault: 1 row from Brave"]);
    const card = panel.el.querySelector<HTMLElement>(".vault-research-card.is-outside")!;
    expect(card.querySelector(".vault-research-badge")!.textContent).toBe("Outside vault · Brave · ephemeral");
    expect(card.querySelector(".vault-research-card-snippet")!.textContent).toBe("<b>Lower</b> memory <script>alert(1)</script>");
    expect(card.querySelectorAll("b, script")).toHaveLength(0);
    expect(card.textContent).toContain("2025-08-01");
    expect(card.textContent).not.toContain("Add to vault");
    const open = vi.spyOn(window, "open").mockImplementation(() => null);
    panel.el.querySelector<HTMLElement>(".vault-research-chip-outside")!.click();
    expect(open).toHaveBeenCalledWith("https://automerge.org/blog/automerge-3/", "_blank");
    // The next turn starts from the default again.
    expect(mode.value).toBe("never");
  });

  it("shows vault rows the judge found do not answer as the closest notes, also when the web answered, and never as evidence", async () => {
    const noNote = { verdict: "no_evidence" as const, reason: "no note is about this", missing_terms: [] };
    const answers: ResearchResult[] = [
      result(pack("q", [crdt], [release], noNote), `Descale with citric acid [${release.source_key}].`, { stop_reason: "no_evidence" }),
      // The web failed: the stop line says so, and the notes are still not evidence.
      result(pack("q", [crdt], [], noNote), null, { stop_reason: "external_required_failed" }),
      // Stopped before the judge spoke: "no evidence" is only its placeholder, so the rows are not called unrelated.
      result(pack("q", [crdt], [], noNote), null, { stop_reason: "cancelled" }),
      // No vault row at all: the web's answer keeps the vault's counter beside its own.
      result(pack("q", [], [release], noNote), `Descale with citric acid [${release.source_key}].`, { stop_reason: "no_evidence" }),
    ];
    const panel = await openPanel(async () => answers.shift()!, { settings: (s) => (s.external.enabled = true) });
    const counters: (string | null)[][] = [];
    for (let i = 0; i < 4; i++) {
      panel.el.querySelector<HTMLElement>(".vault-research-new-chat")!.click();
      panel.type("How do I descale an espresso machine?");
      panel.press("Enter");
      await panel.settled();
      counters.push(texts(panel.el, ".vault-research-counter").map((t) => t?.replace(/ from Brave$/, "") ?? null));
    }
    expect(counters).toEqual([
      ["Closest notes: 1, none about this question", "Outside vault: 1 row"],
      ["Closest notes: 1, none about this question"],
      ["Vault evidence: 1 row"],
      ["Vault evidence: 0 rows", "Outside vault: 1 row"],
    ]);
  });

  it("passes earlier questions of the chat as history, and New chat forgets them", async () => {
    const panel = await openPanel(async (request) => result(pack(request.question, [crdt]), `Answer [${crdt.source_key}].`));
    for (const q of ["What is a CRDT?", "And how does it merge?"]) {
      panel.type(q);
      panel.press("Enter");
      await panel.settled();
    }
    expect(panel.calls[1].request.history).toEqual(["What is a CRDT?"]);
    panel.el.querySelector<HTMLElement>(".vault-research-new-chat")!.click();
    expect(panel.el.querySelectorAll(".vault-research-turn")).toHaveLength(0);
    panel.type("Fresh start");
    panel.press("Enter");
    await panel.settled();
    expect(panel.calls[2].request.history).toEqual([]);
  });

  it("cancels on Escape: the run is aborted, the composer is free, and late local results still show", async () => {
    let finish: (r: ResearchResult) => void = () => {};
    const panel = await openPanel((request, deps) => {
      deps.onProgress?.({ stage: "local_retrieval", status: "started", detail: "", at: 0 });
      return new Promise((resolve) => (finish = resolve));
    });
    panel.type("slow question");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    expect(panel.view.isRunning()).toBe(true);
    panel.press("Escape");
    expect(panel.calls[0].deps.signal?.aborted).toBe(true);
    expect(panel.view.isRunning()).toBe(false);
    expect(panel.el.querySelector(".vault-research-turn.is-cancelled")).not.toBeNull();
    expect(panel.el.querySelector(".vault-research-stage.is-started")).toBeNull();
    finish(result(pack("slow question", [crdt]), null, { stop_reason: "cancelled" }));
    await panel.settled();
    expect(texts(panel.el, ".vault-research-counter")).toEqual(["Vault evidence: 1 row"]);
    expect(panel.el.textContent).toContain("Cancelled. What was found before stopping is below.");
  });

  it("keeps running when Esc only closes an input method's candidates in the question box", async () => {
    const panel = await openPanel(() => new Promise(() => {}));
    panel.type("first question");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    panel.type("にほ");
    panel.press("Escape", { isComposing: true });
    expect(panel.view.isRunning()).toBe(true);
    expect(panel.calls[0].deps.signal?.aborted).toBe(false);
    panel.press("Escape");
    expect(panel.view.isRunning()).toBe(false);
  });

  it("explains provider failures with what to do, and keeps the vault results", async () => {
    const panel = await openPanel(async (request) =>
      result(pack(request.question, [crdt]), `Vault says [${crdt.source_key}].`, {
        stop_reason: "external_failed_local_used",
        trace: searchedTrace([{ stage: "external_retrieval", kind: "rate_limited", provider: "brave", message: "Too many requests; try again in 3 s." }]),
      }),
    { settings: (s) => ((s.external.enabled = true), (s.external.defaultMode = "always")) });
    panel.type("latest automerge");
    panel.press("Enter");
    await panel.settled();
    const problem = panel.el.querySelector(".vault-research-problem.is-error")!;
    expect(problem.getAttribute("data-kind")).toBe("rate_limited");
    expect(problem.textContent).toContain("Brave: Too many requests; try again in 3 s.");
    expect(problem.querySelector(".vault-research-problem-hint")!.textContent).toMatch(/Wait a moment/);
    // Brave never answered: "0 rows from Brave" read as Brave having found nothing.
    expect(texts(panel.el, ".vault-research-counter")).toEqual(["Vault evidence: 1 row", "Outside vault: 0 rows"]);
    expect(texts(panel.el, ".vault-research-outside-failed")).toEqual(["Web search failed: Brave was rate limited."]);
  });

  it("names no source on the outside counter when every enabled source failed, and says the web search failed", async () => {
    const failures: ResearchTrace["errors"] = [
      { stage: "external_retrieval", kind: "network", provider: "hackernews", message: "The request failed." },
      { stage: "external_retrieval", kind: "parse", provider: "wikipedia", message: "The answer could not be read." },
    ];
    const panel = await openPanel(async (request) => result(pack(request.question, [crdt]), `Vault says [${crdt.source_key}].`, { stop_reason: "external_failed_local_used", trace: searchedTrace(failures) }), {
      settings: (s) => ((s.external.enabled = true), (s.external.defaultMode = "always"), (s.external.providers = ["hackernews", "wikipedia"])),
    });
    panel.type("latest automerge");
    panel.press("Enter");
    await panel.settled();
    expect(texts(panel.el, ".vault-research-counter")).toEqual(["Vault evidence: 1 row", "Outside vault: 0 rows"]);
    expect(texts(panel.el, ".vault-research-outside-failed")).toEqual(["Web search failed: Hacker News could not be reached; Wikipedia sent an answer that could not be read."]);
  });

  it("names on the outside counter only the source that answered with nothing, and the one that failed under it", async () => {
    const answered = pack("latest automerge", [crdt]);
    answered.coverage.external_freshness = [{ provider: "wikipedia", requested: "any" }];
    const failures: ResearchTrace["errors"] = [{ stage: "external_retrieval", kind: "network", provider: "hackernews", message: "The request failed." }];
    const panel = await openPanel(async () => result(answered, `Vault says [${crdt.source_key}].`, { stop_reason: "external_failed_local_used", trace: searchedTrace(failures) }), {
      settings: (s) => ((s.external.enabled = true), (s.external.defaultMode = "always"), (s.external.providers = ["hackernews", "wikipedia"])),
    });
    panel.type("latest automerge");
    panel.press("Enter");
    await panel.settled();
    expect(texts(panel.el, ".vault-research-counter")).toEqual(["Vault evidence: 1 row", "Outside vault: 0 rows from Wikipedia"]);
    expect(texts(panel.el, ".vault-research-outside-failed")).toEqual(["Web search added no outside rows: Wikipedia answered with nothing to add; Hacker News could not be reached."]);
  });

  it("names no web source under the outside counter when the web was allowed but never asked", async () => {
    const panel = await openPanel(async (request) => {
      const t = trace();
      t.mode = "on-weak";
      t.providers = ["brave"];
      t.events = [{ type: "external_search_skipped", at: 3, data: { reason: "The vault has enough evidence; the web was not searched.", mode: "on-weak" } }];
      return result(pack(request.question, [crdt]), `Vault says [${crdt.source_key}].`, { trace: t });
    }, { settings: (s) => ((s.external.enabled = true), (s.external.defaultMode = "on-weak")) });
    panel.type("How do CRDTs merge?");
    panel.press("Enter");
    await panel.settled();
    expect(texts(panel.el, ".vault-research-counter")).toEqual(["Vault evidence: 1 row", "Outside vault: 0 rows"]);
    expect(texts(panel.el, ".vault-research-outside-not-asked")).toEqual(["Nothing left the device: the vault had enough on this, so the web was not searched."]);
    expect(panel.el.querySelector(".vault-research-timeline-web")!.textContent).toBe("web: not needed");
  });

  it("shows a run that could not start or failed as a readable message", async () => {
    const missing = await openPanel(async () => result(pack("q", []), null), {
      host: { prepareRun: async () => ({ ok: false, problem: { severity: "error", kind: "missing_key", message: "Anthropic models need an API key, and none is set." } }) },
    });
    missing.type("anything");
    missing.press("Enter");
    await missing.settled();
    expect(missing.calls).toHaveLength(0);
    expect(missing.el.querySelector(".vault-research-problem")!.textContent).toContain("Anthropic models need an API key");
    expect(missing.view.isRunning()).toBe(false);

    const broken = await openPanel(async () => {
      throw new Error("index exploded");
    });
    broken.type("anything");
    broken.press("Enter");
    await broken.settled();
    expect(broken.el.querySelector(".vault-research-turn.is-failed .vault-research-problem")!.textContent).toContain("The research run failed: index exploded");
  });

  it("ends a turn whose run could not even be prepared, instead of spinning with Stop forever", async () => {
    const panel = await openPanel(async () => result(pack("q", []), null), {
      host: { prepareRun: () => Promise.reject(new Error("the vault's index could not be read")) },
    });
    panel.type("anything");
    panel.press("Enter");
    await panel.settled();
    expect(panel.view.isRunning()).toBe(false);
    expect(panel.el.querySelector(".vault-research-turn.is-failed .vault-research-problem")!.textContent).toContain("The research run failed: the vault's index could not be read");
    expect(panel.el.querySelector(".vault-research-send")!.getAttribute("aria-label")).toBe("Send (Enter)");
  });

  it("says an evidence brief stands in for a model that could not be reached, never that no answer was written", async () => {
    const brief = `Evidence brief (no model)\n\n- A CRDT merges edits [${crdt.source_key}].`;
    const panel = await openPanel(async (request) =>
      result(pack(request.question, [crdt]), brief, {
        answer: { text: brief, kind: "extractive", verified: true },
        stop_reason: "synthesis_unavailable",
        trace: trace([{ stage: "synthesize", kind: "network", message: "connect ECONNREFUSED 127.0.0.1:11434" }]),
      }),
    );
    panel.type("How do CRDTs merge?");
    panel.press("Enter");
    await panel.settled();
    expect(panel.el.querySelector(".vault-research-answer")).not.toBeNull();
    expect(texts(panel.el, ".vault-research-problem-message")).toEqual(["Could not reach the model's server. The evidence brief is shown instead."]);
    expect(panel.el.textContent).not.toContain("no answer was written");
    expect(panel.el.querySelector(".vault-research-run-text")!.textContent).toMatch(/^Finished in \d+\.\d s\. The model could not be used, so an evidence brief is shown in place of its answer\.$/);
  });

  it("words a refused login by what secret storage holds now: no model key reads as none set, no SearXNG password as a login to give", async () => {
    const failing = (errors: ResearchTrace["errors"]) => async (request: ResearchRequest) =>
      result(pack(request.question, [crdt]), `Vault says [${crdt.source_key}].`, { stop_reason: "synthesis_unavailable", trace: trace(errors) });
    const model = await openPanel(failing([{ stage: "synthesize", kind: "auth", message: "The model server at https://api.openai.com refused the API key (HTTP 401): You didn't provide an API key." }]), {
      settings: (s) => ((s.model.kind = "openai"), (s.model.model = "gpt-4o-mini")),
    });
    model.type("How do CRDTs merge?");
    model.press("Enter");
    await model.settled();
    expect(texts(model.el, ".vault-research-problem-message")).toEqual(["The model's server wants an API key, and none is set. The evidence brief is shown instead."]);

    // The address is set, the password is not: it is asked for, not refused.
    const searxng = await openPanel(failing([{ stage: "external_retrieval", kind: "auth", provider: "searxng", message: "SearXNG at https://search.example refused the user name in its address with no password (HTTP 401)." }]), {
      settings: (s) => ((s.external.enabled = true), (s.external.providers = ["searxng"]), (s.external.searxng.baseUrl = "https://alice@search.example")),
    });
    searxng.type("How do CRDTs merge?");
    searxng.press("Enter");
    await searxng.settled();
    expect(texts(searxng.el, ".vault-research-problem-message")).toEqual(["SearXNG asks for a user name and password."]);
    expect(texts(searxng.el, ".vault-research-problem-action")).toEqual(["Open settings"]);
  });

  it("offers Open settings, beside Retry, for a model server that has no model of the name in settings", async () => {
    const panel = await openPanel(async (request) =>
      result(pack(request.question, [crdt]), `Vault says [${crdt.source_key}].`, {
        stop_reason: "synthesis_unavailable",
        trace: trace([{ stage: "synthesize", kind: "unavailable", message: "The model server at http://localhost:11434 does not have that model (HTTP 404): model 'llama9' not found" }]),
      }),
    );
    const opened: string[] = [];
    (panel.app as unknown as { setting: unknown }).setting = { open: () => opened.push("settings"), openTabById: (id: string) => opened.push(id) };
    panel.type("How do CRDTs merge?");
    panel.press("Enter");
    await panel.settled();
    const buttons = [...panel.el.querySelectorAll<HTMLButtonElement>(".vault-research-problem-action")];
    expect(buttons.map((b) => b.textContent)).toEqual(["Retry", "Open settings"]);
    buttons[1].click();
    expect(opened).toEqual(["settings", "vault-research"]);
  });

  it("shows an unverified answer as unverified, with its errors", async () => {
    const panel = await openPanel(async (request) =>
      result(pack(request.question, [crdt]), "Made up [src:0000000000].", {
        answer: { text: "Made up [src:0000000000].", kind: "model", verified: false },
        verification: { passed: false, errors: [{ kind: "unknown_key", key: "src:0000000000", message: "src:0000000000 is not a source of this answer." }], warnings: [] },
        stop_reason: "verification_failed",
      }),
    );
    panel.type("q");
    panel.press("Enter");
    await panel.settled();
    const answer = panel.el.querySelector(".vault-research-answer")!;
    expect(answer.classList.contains("is-unverified")).toBe(true);
    expect(answer.querySelector(".vault-research-unverified")!.textContent).toContain("src:0000000000 is not a source of this answer.");
  });

  // The status line keeps such a sentence off screen (failureSentence); the list of problems showed it.
  it("does not list an unverified answer's problem that quotes what looks like an API key", async () => {
    const key = "sk-proj-EchoedByTheModel0123456789";
    const panel = await openPanel(async (request) =>
      result(pack(request.question, [crdt]), `Made up [${key}].`, {
        answer: { text: `Made up [${key}].`, kind: "model", verified: false },
        verification: {
          passed: false,
          errors: [
            { kind: "unknown_key", key, message: `The answer cites [${key}], which was not among the evidence it was given.` },
            { kind: "unknown_key", key: "src:0000000000", message: "src:0000000000 is not a source of this answer." },
          ],
          warnings: [],
        },
        stop_reason: "verification_failed",
      }),
    );
    panel.type("q");
    panel.press("Enter");
    await panel.settled();
    expect(panel.el.querySelector(".vault-research-unverified")!.textContent).not.toContain("EchoedByTheModel");
    const items = [...panel.el.querySelectorAll(".vault-research-unverified li")].map((li) => li.textContent);
    expect(items).toEqual([ERROR_WITH_KEY_NOT_SHOWN, "src:0000000000 is not a source of this answer."]);
  });

  it("suggests the web for a question about the current state, and only switches when asked", async () => {
    const panel = await openPanel(async (request) => result(pack(request.question, []), null), { settings: (s) => (s.external.enabled = true) });
    const mode = panel.el.querySelector<HTMLSelectElement>(".vault-research-mode")!;
    const suggestion = panel.el.querySelector<HTMLElement>(".vault-research-suggestion")!;
    panel.type("What is CRDT?");
    expect(suggestion.style.display).toBe("none");
    panel.type("What is the latest Automerge release?");
    expect(suggestion.style.display).toBe("");
    expect(mode.value).toBe("never");
    suggestion.querySelector<HTMLElement>("button")!.click();
    expect(mode.value).toBe("always");
    expect(suggestion.style.display).toBe("none");
  });

  it("does not offer the web at all while external search is off in settings", async () => {
    const panel = await openPanel(async (request) => result(pack(request.question, []), null));
    expect(panel.el.querySelector<HTMLSelectElement>(".vault-research-mode")!.disabled).toBe(true);
    panel.type("What is the latest Automerge release?");
    const suggestion = panel.el.querySelector<HTMLElement>(".vault-research-suggestion")!;
    expect(suggestion.querySelector("button")).toBeNull();
    expect(suggestion.textContent).toContain("Turn on external search in settings");
    panel.press("Enter");
    await panel.settled();
    expect(panel.calls[0].request.mode).toBe("never");
  });

  it("copies the answer as markdown and inserts it at the cursor of the last active note", async () => {
    const panel = await openPanel(async (request) => result(pack(request.question, [crdt]), `Merges offline [${crdt.source_key}].`, { trace_path: "Research/Traces/run.md" }));
    panel.type("q");
    panel.press("Enter");
    await panel.settled();
    const writeText = vi.fn(async () => {});
    vi.stubGlobal("navigator", { clipboard: { writeText } });
    const action = (name: string) => [...panel.el.querySelectorAll<HTMLElement>(".vault-research-turn-action")].find((b) => b.getAttribute("aria-label") === name)!;
    action("Copy answer").click();
    await panel.settled();
    expect(writeText).toHaveBeenCalledWith(expect.stringContaining("Merges offline ([[Concepts/CRDT#Merging|CRDT]])"));
    vi.unstubAllGlobals();

    action("Insert at cursor").click();
    expect(notices.at(-1)?.message).toMatch(/Open a note first/);
    const noteLeaf = new WorkspaceLeaf(panel.app);
    const markdown = new MarkdownView(noteLeaf, panel.app.vault.seed("Draft.md", ""), "Intro\n");
    markdown.editor.setCursor({ line: 1, ch: 0 });
    noteLeaf.view = markdown;
    panel.app.workspace.mostRecentLeaf = noteLeaf;
    action("Insert at cursor").click();
    expect(markdown.editor.getValue()).toMatch(/^Intro\nMerges offline \(\[\[Concepts\/CRDT#Merging\|CRDT\]\]\)/);

    action("Open trace note").click();
    expect(notices.at(-1)?.message).toBe("run is no longer in your vault: it was moved or deleted.");
    panel.app.vault.seed("Research/Traces/run.md", "# Trace\n");
    action("Open trace note").click();
    expect(panel.app.workspace.openedLinks.at(-1)?.linktext).toBe("Research/Traces/run.md");
  });
});

describe("what the panel says to a screen reader", () => {
  /** Every text the panel's live region is given, in order. */
  function announcements(panel: Panel): string[] {
    const live = panel.el.querySelectorAll("[aria-live], [role='status'], [role='alert'], [role='log']");
    expect(live).toHaveLength(1);
    const said: string[] = [];
    const record = () => {
      const text = live[0].textContent ?? "";
      if (text !== said.at(-1)) said.push(text);
    };
    new MutationObserver(record).observe(live[0], { childList: true, characterData: true, subtree: true });
    // Reads each change as it is made, not only the last of a batch.
    const region = live[0] as HTMLElement;
    const setText = region.setText.bind(region);
    vi.spyOn(region, "setText").mockImplementation((text: string | DocumentFragment) => {
      setText(text);
      record();
    });
    return said;
  }

  it("announces a quick run's start and outcome, not each of its dozen stages", async () => {
    const stages: ProgressEvent["stage"][] = ["plan", "local_retrieval", "judge", "external_policy", "merge", "prepare_synthesis", "synthesize", "verify", "trace"];
    const panel = await openPanel(async (request, deps) => {
      for (const stage of stages) {
        deps.onProgress?.({ stage, status: "started", detail: "", at: 0 });
        deps.onProgress?.({ stage, status: "done", detail: "ok", at: 1 });
      }
      return result(pack(request.question, [crdt]), `Merges [${crdt.source_key}].`);
    });
    const said = announcements(panel);
    panel.type("How do CRDTs merge?");
    panel.press("Enter");
    await panel.settled();
    expect(said).toEqual(["Starting…", expect.stringMatching(/^Finished in \d+\.\d s\.$/)]);
    // The visible line still followed every step.
    expect(panel.el.querySelector(".vault-research-run-text")!.textContent).toMatch(/^Finished in/);
  });

  it("says an unverified answer is unverified when its run ends, once", async () => {
    const panel = await openPanel(async (request) =>
      result(pack(request.question, [crdt]), "Made up [src:0000000000].", {
        answer: { text: "Made up [src:0000000000].", kind: "model", verified: false },
        verification: { passed: false, errors: [{ kind: "unknown_key", key: "src:0000000000", message: "src:0000000000 is not a source of this answer." }], warnings: [] },
        stop_reason: "verification_failed",
      }),
    );
    const said = announcements(panel);
    panel.type("How do CRDTs merge?");
    panel.press("Enter");
    await panel.settled();
    expect(said).toEqual(["Starting…", expect.stringMatching(/^Finished in \d+\.\d s\. Unverified answer: its citations did not check out\. Read it with care\.$/)]);
    expect(said.filter((s) => s.includes(UNVERIFIED_SENTENCE))).toHaveLength(1);
    expect(panel.el.querySelector(".vault-research-unverified-title")!.textContent).toBe(UNVERIFIED_SENTENCE);
  });

  it("says why a run failed, in its problem's sentence, not only that it failed", async () => {
    const broken = await openPanel(async () => {
      throw new Error("index exploded");
    });
    const said = announcements(broken);
    broken.type("anything");
    broken.press("Enter");
    await broken.settled();
    expect(said).toEqual(["Starting…", "The research run failed: index exploded."]);

    const missing = await openPanel(async () => result(pack("q", []), null), {
      host: { prepareRun: async () => ({ ok: false, problem: { severity: "error", kind: "missing_key", message: "Anthropic models need an API key, and none is set." } }) },
    });
    const saidMissing = announcements(missing);
    missing.type("anything");
    missing.press("Enter");
    await missing.settled();
    expect(saidMissing).toEqual(["Starting…", "The run failed. Anthropic models need an API key, and none is set."]);
  });

  it("never says a key a failure's message holds", async () => {
    const key = "sk-proj-4fT9xQ2mZ8vL1cB7nR3wK6yH0";
    const panel = await openPanel(async () => {
      throw new Error(`the server refused ${key}`);
    });
    const said = announcements(panel);
    panel.type("anything");
    panel.press("Enter");
    await panel.settled();
    expect(said.at(-1)).toBe("The run failed. Its error holds what looks like an API key, so it is not repeated here.");
    expect(said.join(" ")).not.toContain(key);
  });

  it("says the answer was copied, and leaves the run's ending in view", async () => {
    const panel = await openPanel(async (request) => result(pack(request.question, [crdt]), `Merges offline [${crdt.source_key}].`));
    const said = announcements(panel);
    panel.type("q");
    panel.press("Enter");
    await panel.settled();
    vi.stubGlobal("navigator", { clipboard: { writeText: async () => {} } });
    try {
      panel.el.querySelector<HTMLElement>(".vault-research-turn-action.is-copy")!.click();
      await panel.settled();
    } finally {
      vi.unstubAllGlobals();
    }
    expect(said).toEqual(["Starting…", expect.stringMatching(/^Finished in/), "Answer copied."]);
    expect(panel.el.querySelector(".vault-research-run-text")!.textContent).toMatch(/^Finished in/);
  });

  it("names a step the run is still on after a pause, once", async () => {
    vi.useFakeTimers();
    try {
      const panel = await openPanel((request, deps) => {
        deps.onProgress?.({ stage: "local_retrieval", status: "started", detail: "", at: 0 });
        deps.onProgress?.({ stage: "local_retrieval", status: "done", detail: "2 notes", at: 1 });
        deps.onProgress?.({ stage: "external_retrieval", status: "started", detail: "", at: 1, provider: "brave" });
        return new Promise(() => {});
      });
      const said = announcements(panel);
      panel.type("latest automerge");
      // A question about the current state: the composer's suggestion is said as it appears (the web is off in these settings).
      const suggestion = "This looks like a question about the current state of things; your notes may be out of date. Turn on external search in settings to look it up on the web.";
      expect(said).toEqual([suggestion]);
      panel.press("Enter");
      await vi.advanceTimersByTimeAsync(0);
      expect(panel.el.querySelector(".vault-research-run-text")!.textContent).toBe("Searching the web with Brave…");
      expect(said).toEqual([suggestion, "Starting…"]);
      await vi.advanceTimersByTimeAsync(STEP_PAUSE_MS * 3);
      expect(said).toEqual([suggestion, "Starting…", "Searching the web with Brave…"]);
      panel.press("Escape");
      expect(said).toEqual([suggestion, "Starting…", "Searching the web with Brave…", "Cancelled."]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("says what a question waits for while the index is first built, announced once", async () => {
    let prepared: () => void = () => {};
    let onWait: ((text: string) => void) | undefined;
    const panel = await openPanel(async (request) => result(pack(request.question, [crdt]), null), {
      host: {
        prepareRun: (wait) => {
          onWait = wait;
          return new Promise((resolve) => (prepared = () => resolve({ ok: true, deps: {} as RunDeps })));
        },
      },
    });
    panel.type("asked while the index builds");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    onWait?.("Waiting for the index: 120 of 900 notes…");
    onWait?.("Waiting for the index: 240 of 900 notes…");
    expect(texts(panel.el, ".vault-research-run-text")).toEqual(["Waiting for the index: 240 of 900 notes…"]);
    expect(texts(panel.el, ".vault-research-run-announcer")).toEqual(["Waiting for the index: 120 of 900 notes…"]);
    prepared();
    await panel.settled();
    expect(panel.calls).toHaveLength(1);
  });

  it("never starts a run that was stopped while it was being prepared", async () => {
    let prepared: () => void = () => {};
    const panel = await openPanel(async (request) => result(pack(request.question, [crdt]), null), {
      host: { prepareRun: () => new Promise((resolve) => (prepared = () => resolve({ ok: true, deps: {} as RunDeps }))) },
    });
    panel.type("asked while the index builds");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    panel.press("Escape");
    prepared();
    await panel.settled();
    expect(panel.calls).toHaveLength(0);
    expect(texts(panel.el, ".vault-research-stop")).toEqual(["Cancelled."]);
  });
});

describe("driving runs from earlier turns", () => {
  const retryOf = (panel: Panel) => [...panel.el.querySelectorAll<HTMLElement>(".vault-research-problem-action")].find((b) => b.textContent === "Retry")!;
  const rateLimited = (request: ResearchRequest) =>
    result(pack(request.question, [crdt]), `Vault says [${crdt.source_key}].`, {
      stop_reason: "external_failed_local_used",
      trace: trace([{ stage: "external_retrieval", kind: "rate_limited", provider: "brave", message: "Too many requests." }]),
    });

  it("a Retry after the web was turned off in settings stays in the vault", async () => {
    let settings!: Settings;
    const panel = await openPanel(async (request) => rateLimited(request), {
      settings: (s) => ((settings = s), (s.external.enabled = true), (s.external.defaultMode = "always")),
    });
    panel.type("latest automerge");
    panel.press("Enter");
    await panel.settled();
    expect(panel.calls[0].request.mode).toBe("always");
    settings.external.enabled = false;
    panel.view.refreshSettings();
    retryOf(panel).click();
    await panel.settled();
    expect(panel.calls[1].request.mode).toBe("never");
    expect(texts(panel.el, ".vault-research-turn-meta").at(-1)).toBe("Vault only");
  });

  it("a Retry never asks a source that was turned off since", async () => {
    let settings!: Settings;
    const panel = await openPanel(async (request) => rateLimited(request), {
      settings: (s) => ((settings = s), (s.external.enabled = true), (s.external.defaultMode = "always"), (s.external.providers = ["brave", "wikipedia"])),
    });
    panel.el.querySelector<HTMLSelectElement>(".vault-research-provider")!.value = "brave";
    panel.type("latest automerge");
    panel.press("Enter");
    await panel.settled();
    expect(panel.calls[0].request.providers).toEqual(["brave"]);
    settings.external.providers = ["wikipedia"];
    panel.view.refreshSettings();
    retryOf(panel).click();
    await panel.settled();
    expect(panel.calls[1].request.providers).toEqual(["wikipedia"]);
  });

  it("keeps the web choice made for this question when some setting is saved meanwhile (the dial remembering its level)", async () => {
    const panel = await openPanel(async (request) => result(pack(request.question, [crdt]), null), {
      settings: (s) => ((s.external.enabled = true), (s.external.defaultMode = "always"), (s.external.providers = ["brave", "wikipedia"]), (s.external.freshness = "pw")),
    });
    const choose = (cls: string, value: string) => {
      const select = panel.el.querySelector<HTMLSelectElement>(cls)!;
      select.value = value;
      select.dispatchEvent(new Event("change"));
    };
    choose(".vault-research-mode", "never");
    panel.type("what did I write about kites?");
    panel.view.refreshSettings();
    panel.press("Enter");
    await panel.settled();
    expect(panel.calls[0].request.mode).toBe("never");

    choose(".vault-research-mode", "always");
    choose(".vault-research-provider", "wikipedia");
    choose(".vault-research-freshness", "py");
    panel.type("latest kite designs");
    panel.view.refreshSettings();
    panel.press("Enter");
    await panel.settled();
    expect(panel.calls[1].request).toMatchObject({ mode: "always", providers: ["wikipedia"], freshness: "py" });
  });

  it("Search the web for this does not search once the web is off in settings, and says why", async () => {
    let settings!: Settings;
    const panel = await openPanel(async (request) => result(pack(request.question, []), null, { stop_reason: "no_evidence" }), {
      settings: (s) => ((settings = s), (s.external.enabled = true)),
    });
    panel.type("what is a kite?");
    panel.press("Enter");
    await panel.settled();
    const searchWeb = panel.el.querySelector<HTMLElement>(".vault-research-turn-action.is-searchWeb")!;
    settings.external.enabled = false;
    panel.view.refreshSettings();
    searchWeb.click();
    await panel.settled();
    expect(panel.calls).toHaveLength(1);
    expect(notices.at(-1)?.message).toMatch(/off in settings/);
  });
});

describe("a question asked while a run is going", () => {
  it("is kept in the question box, not dropped, when it comes from the command palette", async () => {
    const panel = await openPanel(() => new Promise(() => {}));
    panel.type("first question");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    await panel.view.ask("a question typed in the Ask modal");
    expect(panel.calls).toHaveLength(1);
    expect(panel.el.querySelector<HTMLTextAreaElement>(".vault-research-input")!.value).toBe("a question typed in the Ask modal");
    expect(notices.at(-1)?.message).toMatch(/question is in the box/);
  });

  it("never replaces what the user is typing in the box, and keeps the question in the Ask box instead, saying so in the live region", async () => {
    forgetUnsentQuestion();
    const panel = await openPanel(() => new Promise(() => {}));
    panel.type("first question");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    panel.type("a draft of my own");
    await panel.view.ask("a question typed in the Ask modal");
    expect(panel.calls).toHaveLength(1);
    expect(panel.el.querySelector<HTMLTextAreaElement>(".vault-research-input")!.value).toBe("a draft of my own");
    expect(notices.at(-1)?.message).toBe(KEPT_IN_ASK_BOX);
    expect(texts(panel.el, ".vault-research-run-announcer")).toEqual([KEPT_IN_ASK_BOX]);

    // The next Ask box opens with it, selected, as after Esc: Enter asks it once the run is over.
    const asked: string[] = [];
    const modal = new AskQuestionModal(panel.app as unknown as ObsidianApp, (q) => asked.push(q));
    modal.open();
    const box = modal.contentEl.querySelector("textarea")!;
    expect(box.value).toBe("a question typed in the Ask modal");
    expect([box.selectionStart, box.selectionEnd]).toEqual([0, box.value.length]);
    box.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
    expect(asked).toEqual(["a question typed in the Ask modal"]);
    forgetUnsentQuestion();
  });

  it("says where it put a question it took into the empty box, in the live region as well as a notice", async () => {
    const panel = await openPanel(() => new Promise(() => {}));
    panel.type("first question");
    panel.press("Enter");
    await new Promise((r) => window.setTimeout(r, 0));
    await panel.view.ask("a selection to research");
    expect(texts(panel.el, ".vault-research-run-announcer")).toEqual([KEPT_IN_BOX]);
  });
});

describe("a run that ends after the user moved on", () => {
  it("leaves a new chat alone: its first outside group still explains ephemeral", async () => {
    const finishes: ((r: ResearchResult) => void)[] = [];
    const panel = await openPanel(() => new Promise((resolve) => finishes.push(resolve)), {
      settings: (s) => ((s.external.enabled = true), (s.external.defaultMode = "always")),
    });
    const webResult = (question: string) => result(pack(question, [], [release]), `Version 3 [${release.source_key}].`);
    panel.type("latest automerge");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    panel.el.querySelector<HTMLElement>(".vault-research-new-chat")!.click();
    finishes[0](webResult("latest automerge"));
    await panel.settled();
    panel.type("latest automerge, again");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    finishes[1](webResult("latest automerge, again"));
    await panel.settled();
    expect(panel.el.querySelectorAll(".vault-research-turn")).toHaveLength(1);
    expect(panel.el.querySelectorAll(".vault-research-legend")).toHaveLength(1);
  });

  it("does not pull the panel back to a stopped turn while the user reads a newer one", async () => {
    const finishes: ((r: ResearchResult) => void)[] = [];
    const panel = await openPanel(() => new Promise((resolve) => finishes.push(resolve)));
    panel.type("first");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    panel.press("Escape");
    panel.type("second");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    const turns = panel.el.querySelector<HTMLElement>(".vault-research-turns")!;
    const [first, second] = [...turns.querySelectorAll<HTMLElement>(".vault-research-turn")];
    Object.defineProperty(turns, "offsetTop", { value: 10 });
    Object.defineProperty(first, "offsetTop", { value: 20 });
    Object.defineProperty(second, "offsetTop", { value: 900 });
    turns.scrollTop = 880;
    finishes[0](result(pack("first", [crdt]), null, { stop_reason: "cancelled" }));
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    expect(first.querySelector(".vault-research-evidence")).not.toBeNull();
    expect(turns.scrollTop).toBe(880);
    finishes[1](result(pack("second", [crdt]), `Answer [${crdt.source_key}].`));
    await panel.settled();
    expect(turns.scrollTop).toBe(890);
  });
});

describe("a run the user stopped, and the trace note it did not write", () => {
  const STOPPED_WHERE = "The run was cancelled during the external retrieval stage.";
  const NOT_WRITTEN = "The run was stopped, so no trace note was written into the vault.";

  /** A vault that holds what is created in it; `create` refuses a path that is taken, as the port says. */
  function memoryStore(): NoteStore & { files: Map<string, string> } {
    const files = new Map<string, string>();
    return {
      files,
      list: async () => [],
      read: async (path) => files.get(path) ?? "",
      exists: async (path) => files.has(path),
      create: async (path, content) => {
        if (files.has(path)) throw new Error(`${path} exists`);
        files.set(path, content);
      },
    };
  }

  /** What the run returns when it was stopped: the pack so far, and a trace it did not write as a note. */
  function stoppedResult(question: string, extra: Partial<ResearchResult> = {}): ResearchResult {
    const p = pack(question, [crdt]);
    p.warnings = [
      { kind: "cancelled", message: STOPPED_WHERE },
      { kind: "trace_not_written", message: NOT_WRITTEN },
    ];
    return { pack: p, stop_reason: "cancelled", trace: { ...trace(), question, started_at: "2026-11-30T14:12:03.000Z", stop_reason: "cancelled", pack: p }, ...extra };
  }

  async function stopRun(answer: (question: string) => ResearchResult, store: NoteStore, settings?: (s: Settings) => void): Promise<Panel> {
    let finish: (r: ResearchResult) => void = () => {};
    const panel = await openPanel(
      (request, deps) => {
        deps.onProgress?.({ stage: "external_retrieval", status: "started", detail: "", at: 0 });
        return new Promise((resolve) => (finish = () => resolve(answer(request.question))));
      },
      { host: { prepareRun: async () => ({ ok: true, deps: { store } as RunDeps }) }, ...(settings ? { settings } : {}) },
    );
    panel.type("What changed in Automerge 3?");
    panel.press("Enter");
    await new Promise((r) => setTimeout(r, 0));
    panel.press("Escape");
    finish(answer(""));
    await panel.settled();
    return panel;
  }

  const button = (panel: Panel, name: string) => [...panel.el.querySelectorAll<HTMLElement>(".vault-research-turn-action")].find((b) => b.getAttribute("aria-label") === name) ?? null;

  it("offers Save trace note; the note says the run was stopped and where, and never that it was not written", async () => {
    const store = memoryStore();
    const panel = await stopRun((q) => stoppedResult(q), store, (s) => (s.notes.traceFolder = "Research/Stopped"));
    expect(texts(panel.el, ".vault-research-problem")).toEqual([]);
    const save = button(panel, "Save trace note")!;
    expect(save).not.toBeNull();
    // Pressed twice before the first write ends: one note.
    save.click();
    save.click();
    await panel.settled();
    expect([...store.files.keys()]).toEqual([expect.stringMatching(/^Research\/Stopped\/.+What changed in Automerge 3\.md$/)]);
    const note = [...store.files.values()][0];
    expect(note).toContain("stop_reason: cancelled");
    expect(note).toContain(`> [!warning] Stopped before it finished\n> ${STOPPED_WHERE}`);
    expect(note).not.toContain("no trace note was written");
    expect(notices.at(-1)?.message).toBe(`Trace note saved: ${[...store.files.keys()][0]}`);
    // The row now opens the note it saved, and the focus is on that button, not lost with the one pressed.
    expect(button(panel, "Save trace note")).toBeNull();
    const open = button(panel, "Open trace note")!;
    expect(document.activeElement).toBe(open);
    panel.app.vault.seed([...store.files.keys()][0], note);
    open.click();
    expect(panel.app.workspace.openedLinks.at(-1)?.linktext).toBe([...store.files.keys()][0]);
    // The stop line stays true once the note exists.
    expect(panel.el.textContent).not.toContain("no trace note was written");
  });

  it("a stop that came as the note was due (the answer already written) also offers it, and shows no problem for it", async () => {
    const store = memoryStore();
    const panel = await stopRun((q) => {
      const r = stoppedResult(q, { stop_reason: "enough_evidence", answer: { text: `Merges offline [${crdt.source_key}].`, kind: "model", verified: true } });
      r.pack.warnings = [{ kind: "trace_not_written", message: NOT_WRITTEN }];
      return r;
    }, store);
    expect(texts(panel.el, ".vault-research-problem")).toEqual([]);
    expect(button(panel, "Save trace note")).not.toBeNull();
  });

  it("is not offered when the run wrote its note, nor when trace notes are off (the run wanted none)", async () => {
    const written = await stopRun((q) => ({ ...stoppedResult(q, { trace_path: "Research/Traces/run.md" }), stop_reason: "enough_evidence" }), memoryStore());
    expect(button(written, "Save trace note")).toBeNull();
    expect(button(written, "Open trace note")).not.toBeNull();
    document.body.empty();
    const off = await stopRun((q) => {
      const r = stoppedResult(q);
      r.pack.warnings = r.pack.warnings.filter((w) => w.kind !== "trace_not_written");
      return r;
    }, memoryStore());
    expect(button(off, "Save trace note")).toBeNull();
  });

  // A page added to the vault before the note was saved had no note to be recorded in: the note
  // then called it "ephemeral", linked no source note, and the trace's promote command offered it again.
  it("records in the saved note a page added to the vault before it was saved, as the note of a finished run would", async () => {
    const store = memoryStore();
    const vault: NoteStore = store;
    let finish: (r: ResearchResult) => void = () => {};
    const stopped = (): ResearchResult => {
      const r = stoppedResult("What changed in Automerge 3?");
      r.pack.external_evidence = [release];
      r.trace.pack = r.pack;
      return r;
    };
    const panel = await openPanel(() => new Promise((resolve) => (finish = () => resolve(stopped()))), {
      host: {
        prepareRun: async () => ({ ok: true, deps: { store: vault } as RunDeps }),
        promote: async () => ({ status: "created", notePath: "Sources/Automerge 3.0.md", extractStatus: { kind: "extracted" }, message: "Saved", traceUpdated: false, warnings: [] }),
      },
    });
    panel.type("What changed in Automerge 3?");
    panel.press("Enter");
    await new Promise((r) => window.setTimeout(r, 0));
    panel.press("Escape");
    finish(stopped());
    await panel.settled();
    panel.el.querySelector<HTMLElement>(".vault-research-promote button")!.click();
    await panel.settled();
    button(panel, "Save trace note")!.click();
    await panel.settled();
    const note = [...store.files.values()][0];
    expect(note).toContain(`**Outside vault · Brave · promoted** · \`${release.source_key}\` · saved as [[Sources/Automerge 3.0|Automerge 3.0]]`);
    const kept = parseTraceNote(note);
    expect("trace" in kept && kept.trace.promotions?.map((p) => [p.source_key, p.note_path])).toEqual([[release.source_key, "Sources/Automerge 3.0.md"]]);
  });

  it("says a note that could not be saved could not, and keeps the button to try again", async () => {
    const store = memoryStore();
    store.create = async () => {
      throw new Error("the folder is read-only");
    };
    const panel = await stopRun((q) => stoppedResult(q), store);
    button(panel, "Save trace note")!.click();
    await panel.settled();
    expect(notices.at(-1)?.message).toBe("The trace note could not be saved: the folder is read-only");
    expect(button(panel, "Save trace note")).not.toBeNull();
  });
});
