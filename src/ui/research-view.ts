// The "Research" side panel: a chat of research turns. Each turn shows the question, the live
// stage timeline, the answer (citations as chips), what went wrong in words, and the evidence in
// two groups — vault and outside vault. The run itself is a dependency (`runResearch`), so the
// panel can be tested with a fake runner and the workbench can drive it in a browser.
import { ItemView, Keymap, MarkdownView, Notice, type WorkspaceLeaf } from "obsidian";
import type { OutsideVaultRow, StopReason, VaultRow } from "../evidence/research-pack";
import type { PromotionResult } from "../promote/promote";
import type { ResearchDeps, ResearchRequest, ResearchResult } from "../research/types";
import type { Settings } from "../settings";
import { answerAsMarkdown } from "./answer-markdown";
import { citationTargets, renderAnswer, type ChipActions } from "./answer-render";
import { Composer, FRESHNESS_LABELS, MODE_LABELS, type TurnOptions } from "./composer";
import { renderEvidence } from "./evidence-cards";
import { problemOfFailure, problemsOf, renderProblems, type RunProblem } from "./run-problems";
import { RunTimeline } from "./run-timeline";
import { openAtSection } from "./search-modal";
import { providerChoiceName } from "../evidence/labels";

export const RESEARCH_VIEW_TYPE = "vault-research-panel";

export type RunResearch = (request: ResearchRequest, deps: ResearchDeps) => Promise<ResearchResult>;

/** Everything a run needs except what the panel adds itself (cancellation and progress). */
export type RunDeps = Omit<ResearchDeps, "signal" | "onProgress">;

/** A run is prepared before it starts; a missing model key is a problem shown in the turn, not a crash. */
export type PreparedRun = { ok: true; deps: RunDeps } | { ok: false; problem: RunProblem };

export interface ResearchPanelHost {
  readonly settings: Settings;
  runResearch: RunResearch;
  prepareRun(): Promise<PreparedRun>;
  /** "Add to vault" on outside cards (hidden without it): saves the row of this run as a note. */
  promote?: (row: OutsideVaultRow, result: ResearchResult) => Promise<PromotionResult>;
}

const STOP_SENTENCES: Partial<Record<StopReason, string>> = {
  no_evidence: "Your vault has no notes on this.",
  weak_evidence: "Your vault has little on this; the answer rests on thin evidence.",
  external_failed_local_used: "The web search failed, so the answer uses your vault only.",
  external_required_failed: "This question needed the web, and the web search failed.",
  synthesis_unavailable: "The model could not be used, so no answer was written. The evidence is below.",
  timeout: "The run took too long and stopped. What was found is below.",
  retrieval_only: "Evidence only; no answer was written.",
  cancelled: "Cancelled. What was found before stopping is below.",
};

interface Turn {
  question: string;
  el: HTMLElement;
  resultEl: HTMLElement;
  timeline: RunTimeline;
  controller: AbortController;
  state: "running" | "done" | "failed" | "cancelled";
}

export class ResearchView extends ItemView {
  private turnsEl!: HTMLElement;
  private emptyEl!: HTMLElement;
  private composer!: Composer;
  private turns: Turn[] = [];
  private running: Turn | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly host: ResearchPanelHost,
  ) {
    super(leaf);
    this.icon = "telescope";
  }

  getViewType(): string {
    return RESEARCH_VIEW_TYPE;
  }

  getDisplayText(): string {
    return "Research";
  }

  override getIcon(): string {
    return "telescope";
  }

  protected override async onOpen(): Promise<void> {
    const root = this.contentEl;
    root.empty();
    root.addClass("vault-research-panel");

    const header = root.createDiv({ cls: "vault-research-panel-header" });
    header.createDiv({ cls: "vault-research-panel-title", text: "Research" });
    const newChat = header.createEl("button", { cls: "vault-research-new-chat", text: "New chat", attr: { type: "button" } });
    newChat.addEventListener("click", () => this.newChat());

    this.turnsEl = root.createDiv({ cls: "vault-research-turns", attr: { "aria-live": "polite" } });
    this.emptyEl = this.turnsEl.createDiv({
      cls: "vault-research-empty",
      text: "Ask a question. Your notes are searched first; the web only when you allow it for that question.",
    });
    this.composer = new Composer(root, () => this.host.settings, {
      send: (question, options) => void this.ask(question, options),
      cancel: () => this.cancel(),
    });
    this.registerDomEvent(this.containerEl, "keydown", (evt: KeyboardEvent) => {
      if (evt.key === "Escape" && this.running) {
        evt.preventDefault();
        this.cancel();
      }
    });
  }

  protected override async onClose(): Promise<void> {
    this.cancel();
  }

  /** Settings changed: the composer offers the new choices and defaults. */
  refreshSettings(): void {
    this.composer?.refresh();
  }

  focusComposer(): void {
    this.composer?.focus();
  }

  isRunning(): boolean {
    return this.running !== null;
  }

  /** Asks a question as a new turn of this chat. Earlier questions travel along as history. */
  async ask(question: string, options: Partial<TurnOptions> = {}): Promise<void> {
    if (this.running) {
      new Notice("A research run is still going. Stop it first.");
      return;
    }
    const turnOptions: TurnOptions = { ...this.composer.options(), ...options };
    const history = this.turns.map((t) => t.question);
    const turn = this.startTurn(question, turnOptions);

    const prepared = await this.host.prepareRun();
    if (!prepared.ok) {
      this.finishTurn(turn, "failed");
      renderProblems(turn.resultEl, [prepared.problem]);
      return;
    }
    const request: ResearchRequest = {
      question,
      history,
      mode: turnOptions.mode,
      providers: turnOptions.providers,
      freshness: turnOptions.freshness,
    };
    const deps: ResearchDeps = {
      ...prepared.deps,
      signal: turn.controller.signal,
      onProgress: (event) => {
        if (turn.state === "running") turn.timeline.add(event);
      },
    };
    try {
      const result = await this.host.runResearch(request, deps);
      const cancelled = turn.state === "cancelled";
      if (!cancelled) this.finishTurn(turn, "done");
      await this.renderResult(turn, result, turnOptions, cancelled);
    } catch (error) {
      if (turn.state === "cancelled") return;
      this.finishTurn(turn, "failed");
      renderProblems(turn.resultEl, [problemOfFailure(error)]);
    }
    this.scrollToTurn(turn);
  }

  /** Stops the running turn at once; whatever it already found is still shown when it arrives. */
  cancel(): void {
    const turn = this.running;
    if (!turn) return;
    turn.controller.abort();
    this.finishTurn(turn, "cancelled");
    turn.resultEl.createDiv({ cls: "vault-research-cancelled", text: "Cancelled." });
  }

  newChat(): void {
    this.cancel();
    this.turns = [];
    this.turnsEl.empty();
    this.turnsEl.appendChild(this.emptyEl);
    this.composer.focus();
  }

  private startTurn(question: string, options: TurnOptions): Turn {
    this.emptyEl.detach();
    const el = this.turnsEl.createDiv({ cls: "vault-research-turn is-running" });
    el.createDiv({ cls: "vault-research-question", text: question });
    el.createDiv({ cls: "vault-research-turn-meta", text: describeOptions(options) });
    const timeline = new RunTimeline(el);
    const resultEl = el.createDiv({ cls: "vault-research-result" });
    const turn: Turn = { question, el, resultEl, timeline, controller: new AbortController(), state: "running" };
    this.turns.push(turn);
    this.running = turn;
    this.composer.setRunning(true);
    this.scrollToEnd();
    return turn;
  }

  private finishTurn(turn: Turn, state: Turn["state"]): void {
    turn.state = state;
    turn.el.removeClass("is-running");
    turn.el.addClass(`is-${state}`);
    turn.timeline.settle(state === "done" ? "done" : state === "cancelled" ? "cancelled" : "failed");
    if (this.running === turn) {
      this.running = null;
      this.composer.setRunning(false);
    }
  }

  private async renderResult(turn: Turn, result: ResearchResult, options: TurnOptions, cancelledEarlier: boolean): Promise<void> {
    const el = turn.resultEl;
    if (cancelledEarlier) el.querySelector(".vault-research-cancelled")?.remove();
    renderProblems(el, problemsOf(result));
    const sentence = STOP_SENTENCES[result.stop_reason];
    if (sentence && !(result.answer && result.stop_reason === "weak_evidence")) {
      el.createDiv({ cls: ["vault-research-stop", `is-${result.stop_reason}`], text: sentence });
    }

    if (result.answer) {
      const verified = result.answer.verified && result.verification?.passed !== false;
      const answerEl = el.createDiv({ cls: ["vault-research-answer", verified ? "is-verified" : "is-unverified"] });
      if (!verified) {
        const banner = answerEl.createDiv({ cls: "vault-research-unverified", attr: { role: "alert" } });
        banner.createDiv({ cls: "vault-research-unverified-title", text: "Unverified answer: its citations did not check out. Read it with care." });
        const errors = result.verification?.errors ?? [];
        if (errors.length > 0) {
          const list = banner.createEl("ul");
          for (const e of errors) list.createEl("li", { text: e.message });
        }
      }
      // An evidence brief carries its own heading saying so.
      if (result.answer.kind === "model") answerEl.createDiv({ cls: "vault-research-answer-kind", text: `Written by ${result.answer.model ?? "the model"}` });
      const body = answerEl.createDiv({ cls: "vault-research-answer-body markdown-rendered" });
      await renderAnswer(this.app, result.answer.text, body, citationTargets(result.pack, result.citations), this.chipActions(), this);
      this.renderTurnActions(el, result);
    } else if (result.trace_path) {
      this.renderTurnActions(el, result);
    }

    const promote = this.host.promote;
    renderEvidence(
      el,
      result.pack,
      {
        openNote: (row, evt) => this.openVaultRow(row, evt),
        openUrl: (row) => openExternal(row.url),
        ...(promote ? { promote: (row: OutsideVaultRow) => promote(row, result) } : {}),
        openPath: (path, evt) => void this.app.workspace.openLinkText(path, "", Keymap.isModEvent(evt)),
      },
      { outsideAsked: options.mode !== "never", providersAsked: options.providers },
    );
  }

  private renderTurnActions(parent: HTMLElement, result: ResearchResult): void {
    const actions = parent.createDiv({ cls: "vault-research-turn-actions" });
    if (result.answer) {
      button(actions, "Copy answer", () => void this.copyAnswer(result));
      button(actions, "Insert at cursor", () => this.insertAnswer(result));
    }
    const trace = result.trace_path;
    if (trace) button(actions, "Open trace note", () => void this.app.workspace.openLinkText(trace, "", false));
  }

  private async copyAnswer(result: ResearchResult): Promise<void> {
    try {
      await navigator.clipboard.writeText(answerAsMarkdown(result));
      new Notice("Answer copied.");
    } catch {
      new Notice("Could not copy the answer to the clipboard.");
    }
  }

  private insertAnswer(result: ResearchResult): void {
    // The panel has focus when its button is clicked, so the note is the last one active in the main area.
    const view = this.app.workspace.getMostRecentLeaf()?.view ?? null;
    const editorView = view instanceof MarkdownView ? view : this.app.workspace.getActiveViewOfType(MarkdownView);
    if (!editorView) {
      new Notice("Open a note first, then insert the answer at its cursor.");
      return;
    }
    editorView.editor.replaceSelection(answerAsMarkdown(result));
    new Notice(`Answer inserted into ${editorView.file?.basename ?? "the note"}.`);
  }

  private chipActions(): ChipActions {
    return {
      openNote: (target, evt) => void openAtSection(this.app, target.path, target.heading ? { heading: target.heading, line: target.line ?? 1 } : undefined, Keymap.isModEvent(evt)),
      openUrl: (target) => openExternal(target.url),
    };
  }

  private openVaultRow(row: VaultRow, evt: MouseEvent): void {
    const best = row.sections[0];
    void openAtSection(this.app, row.note_path, best && best.heading !== "" ? best : undefined, Keymap.isModEvent(evt));
  }

  private scrollToEnd(): void {
    this.turnsEl.scrollTop = this.turnsEl.scrollHeight;
  }

  /** A finished turn is read from its question down. */
  private scrollToTurn(turn: Turn): void {
    this.turnsEl.scrollTop = Math.max(0, turn.el.offsetTop - this.turnsEl.offsetTop);
  }
}

/** "Vault only" or "External web: Always · Brave + Exa · 7d". */
export function describeOptions(options: TurnOptions): string {
  if (options.mode === "never") return "Vault only";
  const freshness = FRESHNESS_LABELS[options.freshness] ?? options.freshness;
  return `External web: ${MODE_LABELS[options.mode]} · ${options.providers.map(providerChoiceName).join(" + ")} · ${freshness}`;
}

/** Web pages open in the system browser (the app hands `window.open` of http(s) URLs to it). */
function openExternal(url: string): void {
  if (!/^https?:\/\//i.test(url)) {
    new Notice("Only web addresses can be opened.");
    return;
  }
  window.open(url, "_blank");
}

function button(parent: HTMLElement, text: string, onClick: () => void): HTMLButtonElement {
  const el = parent.createEl("button", { cls: "vault-research-turn-action", text, attr: { type: "button" } });
  el.addEventListener("click", onClick);
  return el;
}
