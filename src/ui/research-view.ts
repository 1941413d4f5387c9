// The "Research" side panel: a chat of research turns. Each turn is headed by its question and
// shows the stage timeline (folded to one line once the run is over), the answer (citations as
// chips), what went wrong in words with the control to fix it, and the evidence in two groups —
// vault and outside vault. One status line under the turns says what the run is doing and how it
// ended; it holds the panel's one live region, which names only the steps a user waits on. The
// run itself is a dependency (`runResearch`), so the panel can be tested with a fake runner and
// the workbench can drive it in a browser.
import { ItemView, Keymap, MarkdownView, Notice, type WorkspaceLeaf } from "obsidian";
import type { OutsideVaultRow, StopReason, VaultRow } from "../evidence/research-pack";
import type { PromotionResult } from "../promote/promote";
import { keyInQuestion } from "../research/key-in-question";
import { asSentence } from "../text/sentence-ends";
import type { ResearchDeps, ResearchRequest, ResearchResult } from "../research/types";
import type { Settings } from "../settings";
import { isProviderName, type ProviderName } from "../provider-names";
import { SOURCE_ACCESS } from "../websearch/source-access";
import type { NoteStore, SecretName } from "../ports";
import { saveStoppedTraceNote } from "../research/stopped-trace-note";
import type { Promotion } from "../notes/trace-note";
import { webOutcomeOfTrace, webOutcomeSummary, type WebOutcome } from "../notes/web-outcome";
import { errorMessage } from "../text/error-message";
import { answerAsMarkdown } from "./answer-markdown";
import { keepUnsentQuestion } from "./ask-modal";
import { citationTargets, renderAnswer, type ChipActions } from "./answer-render";
import { Composer, FRESHNESS_LABELS, MODE_LABELS, withinSettings, type TurnOptions } from "./composer";
import { renderEvidence, type EvidenceActions } from "./evidence-cards";
import { openPluginSettings } from "./open-settings";
import { problemOfFailure, problemsOf, renderProblems, type ProblemActions, type ProblemContext, type RunProblem } from "./run-problems";
import { RunStatus } from "./run-status";
import { RunTimeline } from "./run-timeline";
import { openAtSection } from "./search-modal";
import { secretIsSet } from "./secret-presence";
import { renderTurnActions } from "./turn-actions";
import { providerChoiceName } from "../evidence/labels";
import type { DialHost } from "./dial-host";

export const RESEARCH_VIEW_TYPE = "vault-research-panel";

export type RunResearch = (request: ResearchRequest, deps: ResearchDeps) => Promise<ResearchResult>;

/** Everything a run needs except what the panel adds itself (cancellation and progress). */
export type RunDeps = Omit<ResearchDeps, "signal" | "onProgress">;

/** A run is prepared before it starts; a missing model key is a problem shown in the turn, not a crash. */
export type PreparedRun = { ok: true; deps: RunDeps } | { ok: false; problem: RunProblem };

export interface ResearchPanelHost {
  readonly settings: Settings;
  runResearch: RunResearch;
  /**
   * Everything a run needs, once it can start; while it waits (the index still building) it may say
   * what for through `onWait`, again as that changes.
   */
  prepareRun(onWait?: (text: string) => void): Promise<PreparedRun>;
  /** "Add to vault" on outside cards (hidden without it): saves the row of this run as a note. */
  promote?: (row: OutsideVaultRow, result: ResearchResult) => Promise<PromotionResult>;
  /** The search dial: the composer shows it for the run's vault search (hidden without it). */
  dial?: DialHost;
}

const STOP_SENTENCES: Partial<Record<StopReason, string>> = {
  no_evidence: "Your vault has no notes on this.",
  weak_evidence: "Your vault has little on this; the answer rests on thin evidence.",
  external_failed_local_used: "The web search failed, so the answer uses your vault only.",
  external_required_failed: "This question needed the web, and the web search failed.",
  synthesis_unavailable: "The model could not be used, so no answer was written. The evidence is below.",
  timeout: "The run took too long and stopped. What was found is below.",
  retrieval_only: "Evidence only; no answer was written.",
  // No word on the trace note: a stopped run writes none, and the turn offers to save one (then it is written).
  cancelled: "Cancelled. What was found before stopping is below.",
};


/** The heading of a turn whose question was an API key, in place of the key. */
export const KEY_NOT_SHOWN = "A question that looked like an API key (not shown)";

/** An unverified answer's problem whose words hold what looks like an API key, in place of them. */
export const ERROR_WITH_KEY_NOT_SHOWN = "A problem whose words hold what looks like an API key (not shown)";

export const BUSY_SENTENCE = "A run is in progress. Stop it with Esc or the stop button, or wait for it to finish.";

/** A question asked from elsewhere mid-run, put in the panel's empty box. */
export const KEPT_IN_BOX = "A run is in progress. Your question is in the box below: send it when the run ends, or stop the run first.";

/**
 * A question asked from elsewhere mid-run while the box holds the user's draft: neither replaces the
 * other, and nothing is asked by itself; the question waits in the Ask box, where it was typed.
 */
export const KEPT_IN_ASK_BOX = "A run is in progress and the box below holds your draft, so your question is kept in the Ask box: it is there, ready to ask, the next time you open it.";

/** The unverified banner's title, and what is said of such an answer when its run ends. */
export const UNVERIFIED_SENTENCE = "Unverified answer: its citations did not check out. Read it with care.";

interface Turn {
  question: string;
  options: TurnOptions;
  el: HTMLElement;
  bodyEl: HTMLElement;
  timeline: RunTimeline;
  controller: AbortController;
  state: "running" | "done" | "failed" | "cancelled";
}

export class ResearchView extends ItemView {
  private turnsEl!: HTMLElement;
  private emptyEl!: HTMLElement;
  private status!: RunStatus;
  private composer!: Composer;
  private turns: Turn[] = [];
  private running: Turn | null = null;
  /** "Ephemeral" is explained under the first outside group of a chat, not under every one. */
  private ephemeralExplained = false;
  /** Notes promotions wrote in this session, as written: "Fetch the page again" trashes only an untouched one. */
  private readonly promotedAsWritten = new Map<string, string>();
  /** Each run's rows added to the vault, by source key: a stopped run's note saved afterwards records them. */
  private readonly promotionsOf = new WeakMap<ResearchResult, Map<string, Promotion>>();

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
    header.createEl("h2", { cls: "vault-research-panel-title", text: "Research" });
    const newChat = header.createEl("button", { cls: "vault-research-new-chat", text: "New chat", attr: { type: "button" } });
    newChat.addEventListener("click", () => this.newChat());

    this.turnsEl = root.createDiv({ cls: "vault-research-turns" });
    this.emptyEl = this.turnsEl.createDiv({
      cls: "vault-research-empty",
      text: "Ask a question. Your notes are searched first; the web only when you allow it for that question.",
    });
    this.status = new RunStatus(root);
    this.composer = new Composer(root, () => this.host.settings, {
      send: (question, options) => void this.ask(question, options),
      cancel: () => this.cancel(),
      busy: () => this.status.say(BUSY_SENTENCE),
      announce: (words) => this.status.aside(words),
    }, this.host.dial);
    this.registerDomEvent(this.containerEl, "keydown", (evt: KeyboardEvent) => {
      // An Esc that closes an input method's candidate list is the input method's, not a Stop.
      if (evt.key === "Escape" && this.running && !evt.isComposing) {
        evt.preventDefault();
        this.cancel();
      }
    });
  }

  protected override async onClose(): Promise<void> {
    this.cancel();
    this.status?.clear();
    this.composer?.destroy();
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
      // Asked from elsewhere (the Ask modal, a selection): the question is kept, not dropped, and the
      // live region says where, since a notice reaches no screen reader.
      const inBox = this.composer.keepForLater(question);
      if (!inBox) keepUnsentQuestion(question);
      const where = inBox ? KEPT_IN_BOX : KEPT_IN_ASK_BOX;
      new Notice(where);
      this.status.say(where);
      return;
    }
    // Choices from an earlier turn (Retry) are held to the settings as they are now.
    const turnOptions = withinSettings({ ...this.composer.options(), ...options }, this.host.settings);
    const history = this.turns.map((t) => t.question);
    const turn = this.startTurn(question, turnOptions);

    const prepared = await this.prepare(turn);
    if (!prepared) return;
    const request: ResearchRequest = { question, history, mode: turnOptions.mode, providers: turnOptions.providers, freshness: turnOptions.freshness };
    const deps: ResearchDeps = {
      ...prepared,
      signal: turn.controller.signal,
      onProgress: (event) => {
        if (turn.state !== "running") return;
        turn.timeline.add(event);
        const step = turn.timeline.currentStep();
        if (step) this.status.progress(`${step}…`);
      },
    };
    try {
      const result = await this.host.runResearch(request, deps);
      // New chat dropped the turn while it ran: its result belongs to no chat on screen.
      if (!this.turns.includes(turn)) return;
      const cancelled = turn.state === "cancelled";
      if (!cancelled) this.finishTurn(turn, "done", result);
      await this.renderResult(turn, result, cancelled, prepared.store);
    } catch (error) {
      if (turn.state === "cancelled") return;
      const problem = problemOfFailure(error);
      this.finishTurn(turn, "failed", undefined, problem);
      renderProblems(turn.bodyEl, [problem], this.problemActions(turn));
    }
    // A stopped run that ends late does not pull the panel back from a newer turn.
    if (this.turns.at(-1) === turn) this.scrollToTurn(turn);
  }

  /** What the turn's run needs once it can start; null when it cannot (said in the turn) or was stopped meanwhile. */
  private async prepare(turn: Turn): Promise<RunDeps | null> {
    // Waiting for the index is said (and announced) once, then its count is shown as it rises.
    let waitSaid = false;
    const onWait = (text: string) => {
      if (turn.state !== "running") return;
      if (waitSaid) this.status.progress(text);
      else this.status.say(text);
      waitSaid = true;
    };
    // A preparation that throws ends the turn like a run that throws: never a Stop button spinning on.
    const prepared = await this.host.prepareRun(onWait).catch((error: unknown): PreparedRun => ({ ok: false, problem: problemOfFailure(error) }));
    // Stopped while the run was being prepared (the index still building): it never starts.
    if (turn.controller.signal.aborted) return null;
    if (!prepared.ok) {
      this.finishTurn(turn, "failed", undefined, prepared.problem);
      // A run that cannot be prepared is a setting to fix (the model's key).
      renderProblems(turn.bodyEl, [{ ...prepared.problem, action: prepared.problem.action ?? "open_settings" }], this.problemActions(turn));
      return null;
    }
    return prepared.deps;
  }

  /** Stops the running turn at once; whatever it already found is still shown when it arrives. */
  cancel(): void {
    const turn = this.running;
    if (!turn) return;
    turn.controller.abort();
    this.finishTurn(turn, "cancelled");
    turn.bodyEl.createDiv({ cls: "vault-research-stop is-cancelled", text: "Cancelled." });
  }

  newChat(): void {
    this.cancel();
    this.turns = [];
    this.ephemeralExplained = false;
    this.turnsEl.empty();
    this.turnsEl.appendChild(this.emptyEl);
    this.status.clear();
    this.composer.focus();
  }

  private startTurn(question: string, options: TurnOptions): Turn {
    this.emptyEl.detach();
    const el = this.turnsEl.createDiv({ cls: "vault-research-turn is-running" });
    // A pasted key is refused by the run (research/key-in-question.ts); it is not left on screen either.
    const heading = keyInQuestion(question) ? KEY_NOT_SHOWN : question;
    el.createEl("h3", { cls: "vault-research-question", text: heading, attr: { dir: "auto" } });
    el.createDiv({ cls: "vault-research-turn-meta", text: describeOptions(options) });
    const timeline = new RunTimeline(el);
    const bodyEl = el.createDiv({ cls: "vault-research-turn-body" });
    const turn: Turn = { question, options, el, bodyEl, timeline, controller: new AbortController(), state: "running" };
    this.turns.push(turn);
    this.running = turn;
    this.composer.setRunning(true);
    this.status.start("Starting…");
    this.scrollToEnd();
    return turn;
  }

  /** `problem`: why a failed turn failed, said with its ending (a screen reader hears no problem box appear). */
  private finishTurn(turn: Turn, state: Turn["state"], result?: ResearchResult, problem?: RunProblem): void {
    turn.state = state;
    turn.el.removeClass("is-running");
    turn.el.addClass(`is-${state}`);
    turn.timeline.settle(state === "running" ? "done" : state, result ? webSummary(result) : undefined);
    if (this.running === turn) {
      this.running = null;
      this.composer.setRunning(false);
      this.status.finish(this.ending(state, result, problem));
    }
  }

  /** How a turn ended, in the words the status line shows and the live region says once. */
  private ending(state: Turn["state"], result?: ResearchResult, problem?: RunProblem): string {
    if (state === "cancelled") return "Cancelled.";
    if (state === "failed") return problem ? failureSentence(problem) : "The run failed.";
    const sentences = [`Finished in ${this.status.elapsed()}.`];
    const stop = result ? stopSentence(result) : undefined;
    if (stop) sentences.push(stop);
    if (result && answerShown(result) && !answerVerified(result)) sentences.push(UNVERIFIED_SENTENCE);
    return sentences.join(" ");
  }

  /** `store`: the vault the run read, where "Save trace note" writes a stopped run's trace. */
  private async renderResult(turn: Turn, result: ResearchResult, cancelledEarlier: boolean, store: NoteStore): Promise<void> {
    const el = turn.bodyEl;
    if (cancelledEarlier) el.empty();
    // A stopped run writes no trace note by design (research/stages/trace.ts), also when Stop came as
    // the note was about to be written: the stop line says so calmly and "Save trace note" is offered,
    // so the warning that says it for the CLI is no problem here.
    const problems = problemsOf(result, this.problemContext()).filter((p) => !(cancelledEarlier && p.kind === "trace_not_written"));
    renderProblems(el, problems, this.problemActions(turn));
    const sentence = stopSentence(result);
    if (sentence) el.createDiv({ cls: ["vault-research-stop", `is-${result.stop_reason}`], text: sentence });
    const noEvidence = noEvidenceAnywhere(result);
    if (answerShown(result)) await this.renderAnswerBox(el, result);
    this.renderActions(el, turn, result, { noEvidence, stoppedBeforeNote: cancelledEarlier && !result.trace_path && notWrittenWarning(result), store });
    const explainEphemeral = !this.ephemeralExplained && result.pack.external_evidence.length > 0;
    if (explainEphemeral) this.ephemeralExplained = true;
    renderEvidence(el, result.pack, this.evidenceActions(result), {
      outsideAsked: turn.options.mode !== "never",
      // Under the outside counter, in the trace note's words: a source named on the counter answered.
      ...(result.trace ? { webOutcome: webOutcomeOfResult(result) } : {}),
      explainEphemeral,
      // With no row at all, a web answer keeps its "Vault evidence: 0 rows" beside the outside counter.
      vaultRowsAreClosestOnly: noEvidence || (judgedNoEvidence(result) && result.pack.evidence.length > 0),
    });
  }

  /**
   * The turn's actions. A turn the user stopped before its trace note was written offers to save
   * it; once saved, the row is drawn again with "Trace" in its place, which takes the focus.
   */
  private renderActions(el: HTMLElement, turn: Turn, result: ResearchResult, how: { noEvidence: boolean; stoppedBeforeNote: boolean; store: NoteStore }): HTMLElement | null {
    const trace = result.trace_path;
    const { noEvidence } = how;
    let row: HTMLElement | null = null;
    let saving = false;
    const saveTrace = async (): Promise<void> => {
      if (saving) return;
      saving = true;
      try {
        const promoted = [...(this.promotionsOf.get(result)?.values() ?? [])];
        result.trace_path = await saveStoppedTraceNote(how.store, this.host.settings.notes.traceFolder, result.trace, promoted);
      } catch (error) {
        new Notice(`The trace note could not be saved: ${errorMessage(error)}`);
        return;
      } finally {
        saving = false;
      }
      new Notice(`Trace note saved: ${result.trace_path}`);
      const again = this.renderActions(el, turn, result, { ...how, stoppedBeforeNote: false });
      if (row && again) {
        row.replaceWith(again);
        again.querySelector<HTMLElement>(".is-openTrace")?.focus();
      }
    };
    row = renderTurnActions(el, {
      ...(noEvidence && this.webCanHelp(turn.options) ? { searchWeb: () => this.searchWeb(turn) } : {}),
      ...(result.answer && !noEvidence ? { copy: () => void this.copyAnswer(result), insert: () => this.insertAnswer(result) } : {}),
      ...(trace ? { openTrace: () => void openAtSection(this.app, trace, undefined) } : {}),
      ...(how.stoppedBeforeNote ? { saveTrace: () => void saveTrace() } : {}),
    });
    return row;
  }

  private async renderAnswerBox(parent: HTMLElement, result: ResearchResult): Promise<void> {
    const answer = result.answer!;
    const verified = answerVerified(result);
    const answerEl = parent.createDiv({ cls: ["vault-research-answer", verified ? "is-verified" : "is-unverified"] });
    if (!verified) {
      const banner = answerEl.createDiv({ cls: "vault-research-unverified" });
      banner.createDiv({ cls: "vault-research-unverified-title", text: UNVERIFIED_SENTENCE });
      const errors = result.verification?.errors ?? [];
      if (errors.length > 0) {
        const list = banner.createEl("ul");
        // A model's answer may echo a key, and a problem may quote it: kept off screen, as the status line keeps it (failureSentence).
        for (const e of errors) list.createEl("li", { text: keyInQuestion(e.message) ? ERROR_WITH_KEY_NOT_SHOWN : e.message });
      }
    }
    // An evidence brief carries its own heading saying so.
    if (answer.kind === "model") answerEl.createDiv({ cls: "vault-research-answer-kind", text: `Written by ${answer.model ?? "the model"}` });
    const body = answerEl.createDiv({ cls: "vault-research-answer-body markdown-rendered" });
    await renderAnswer(this.app, answer.text, body, citationTargets(result.pack, result.citations), this.chipActions(), this);
  }

  /** "Search the web for this": offered while the web was on, it may have been turned off since. */
  private searchWeb(turn: Turn): void {
    if (!this.webCanHelp(turn.options)) {
      new Notice("External search is off in settings. Turn it on there to search the web for this question.");
      return;
    }
    void this.ask(turn.question, { mode: "always" });
  }

  /** Web search is on in settings and this turn did not use it. */
  private webCanHelp(options: TurnOptions): boolean {
    const external = this.host.settings.external;
    return external.enabled && external.providers.length > 0 && options.mode === "never";
  }

  private problemContext(): ProblemContext {
    const settings = this.host.settings;
    const isSet = (name: SecretName) => secretIsSet(this.app, settings, name);
    return {
      enabledProviders: settings.external.providers.length,
      hasKey: (provider) => !isProviderName(provider) || secretOfSourceIsSet(provider, isSet),
      hasModelKey: isSet(settings.model.kind === "anthropic" ? "anthropic" : "openai"),
      hasSearxngAddress: settings.external.searxng.baseUrl.trim() !== "",
    };
  }

  private problemActions(turn: Turn): ProblemActions {
    return {
      openSettings: () => openPluginSettings(this.app),
      retry: () => void this.ask(turn.question, turn.options),
    };
  }

  private evidenceActions(result: ResearchResult): EvidenceActions {
    const promote = this.host.promote;
    return {
      openNote: (row, evt) => this.openVaultRow(row, evt),
      openUrl: (row) => openExternal(row.url),
      ...(promote ? { promote: (row: OutsideVaultRow) => this.promoteAndRemember(() => promote(row, result), row, result) } : {}),
      openPath: (path, evt) => void openAtSection(this.app, path, undefined, Keymap.isModEvent(evt)),
      discardPromoted: async (path) => {
        const gone = await this.discardPromoted(path);
        const promoted = this.promotionsOf.get(result);
        if (gone && promoted) for (const [key, p] of promoted) if (p.note_path === path) promoted.delete(key);
        return gone;
      },
      announce: (text) => this.status.say(text),
    };
  }

  /** `row` of `run` promoted; what it became is kept for the run's trace note, should a stopped run's be saved later. */
  private async promoteAndRemember(promote: () => Promise<PromotionResult>, row: OutsideVaultRow, run: ResearchResult): Promise<PromotionResult> {
    // Just after "Fetch the page again" trashed a note the index still lists it; promotion looks
    // for the note on disk first (promote.ts), so the page is fetched again at once.
    const result = await promote();
    if (result.status !== "failed") {
      const promoted = this.promotionsOf.get(run) ?? new Map<string, Promotion>();
      promoted.set(row.source_key, { source_key: row.source_key, note_path: result.notePath, at: new Date().toISOString() });
      this.promotionsOf.set(run, promoted);
    }
    const file = result.status === "created" ? this.app.vault.getFileByPath(result.notePath) : null;
    if (file) this.promotedAsWritten.set(file.path, await this.app.vault.read(file));
    return result;
  }

  /** Trashes a note a promotion wrote, if it is still exactly as written; the user's edits are never lost. */
  private async discardPromoted(path: string): Promise<boolean> {
    const file = this.app.vault.getFileByPath(path);
    const written = this.promotedAsWritten.get(path);
    if (!file || written === undefined || (await this.app.vault.read(file)) !== written) return false;
    await this.app.fileManager.trashFile(file);
    this.promotedAsWritten.delete(path);
    return true;
  }

  private async copyAnswer(result: ResearchResult): Promise<void> {
    try {
      await navigator.clipboard.writeText(answerAsMarkdown(result));
      this.tell("Answer copied.");
    } catch {
      this.tell("Could not copy the answer to the clipboard.");
    }
  }

  /**
   * The outcome of a turn's action: a notice for the eyes, and the live region for a screen reader
   * (a notice is not read out), leaving the status line's ending in view.
   */
  private tell(text: string): void {
    new Notice(text);
    this.status.aside(text);
  }

  private insertAnswer(result: ResearchResult): void {
    // The panel has focus when its button is clicked, so the note is the last one active in the main area.
    const view = this.app.workspace.getMostRecentLeaf()?.view ?? null;
    const editorView = view instanceof MarkdownView ? view : this.app.workspace.getActiveViewOfType(MarkdownView);
    if (!editorView) {
      this.tell("Open a note first, then insert the answer at its cursor.");
      return;
    }
    editorView.editor.replaceSelection(answerAsMarkdown(result));
    this.tell(`Answer inserted into ${editorView.file?.basename ?? "the note"}.`);
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

/** The run wanted a trace note and wrote none: the stop kept it back (or, on a finished run, the write failed). */
function notWrittenWarning(result: ResearchResult): boolean {
  return result.pack.warnings.some((w) => w.kind === "trace_not_written");
}

/**
 * The judge found that no vault row answers the question: the rows are only what came closest, also
 * when the web answered instead ("Your vault has no notes on this" above "Vault evidence: 1 row" said
 * both). A run stopped before its judge spoke carries "no evidence" as a placeholder, not a verdict.
 */
function judgedNoEvidence(result: ResearchResult): boolean {
  if (result.stop_reason === "no_evidence") return true;
  return result.pack.judge.verdict === "no_evidence" && result.stop_reason !== "cancelled" && result.stop_reason !== "timeout";
}

/** Nothing found, in the vault or outside it. */
function noEvidenceAnywhere(result: ResearchResult): boolean {
  return result.stop_reason === "no_evidence" && result.pack.external_evidence.length === 0;
}

/** Whether the turn shows an answer: no evidence, no brief, since quoting the nearest unrelated notes would contradict the stop line. */
function answerShown(result: ResearchResult): boolean {
  return result.answer !== undefined && !noEvidenceAnywhere(result);
}

/** Whether the answer passed verification; one that did not is shown, and said, as unverified. */
function answerVerified(result: ResearchResult): boolean {
  return result.answer?.verified === true && result.verification?.passed !== false;
}

/**
 * A failed run's ending, in the sentence its problem box shows: "The research run failed: …" for a
 * run that threw. A sentence holding what looks like an API key is not repeated, as a question that
 * is one is not shown (KEY_NOT_SHOWN): the status line and the live region keep no key.
 */
function failureSentence(problem: RunProblem): string {
  if (keyInQuestion(problem.message)) return "The run failed. Its error holds what looks like an API key, so it is not repeated here.";
  const said = asSentence(problem.message);
  return said.startsWith("The research run failed") ? said : `The run failed. ${said}`;
}

/** A model that could not answer leaves the evidence brief in its place, shown as the answer. */
const BRIEF_INSTEAD = "The model could not be used, so an evidence brief is shown in place of its answer.";

/** How the run ended, in one sentence; none when the answer says it (thin evidence, with an answer). */
function stopSentence(result: ResearchResult): string | undefined {
  if (result.answer && result.stop_reason === "weak_evidence") return undefined;
  if (result.answer && result.stop_reason === "synthesis_unavailable") return BRIEF_INSTEAD;
  return STOP_SENTENCES[result.stop_reason];
}

/** "Vault only" or "External web: Always · Brave + Exa · 7d". */
export function describeOptions(options: TurnOptions): string {
  if (options.mode === "never") return "Vault only";
  const freshness = FRESHNESS_LABELS[options.freshness] ?? options.freshness;
  return `External web: ${MODE_LABELS[options.mode]} · ${options.providers.map(providerChoiceName).join(" + ")} · ${freshness}`;
}

/** The web part of a finished timeline's summary ("Brave, 4 results", "Brave failed", "not needed"): the trace note's facts, shorter. */
export function webSummary(result: Pick<ResearchResult, "pack" | "trace">): string | undefined {
  return result.trace ? webOutcomeSummary(webOutcomeOfResult(result)) : undefined;
}

/** The run's web outcome as its trace tells it, read with the pack the turn shows (the trace's is a bounded copy). */
function webOutcomeOfResult(result: Pick<ResearchResult, "pack" | "trace">): WebOutcome {
  return webOutcomeOfTrace({ ...result.trace, pack: result.pack });
}

/** Whether the secret a source sends is set: its key or token, SearXNG's password; true for a source that sends none. */
function secretOfSourceIsSet(source: ProviderName, isSet: (name: SecretName) => boolean): boolean {
  const access = SOURCE_ACCESS[source];
  switch (access.kind) {
    case "keyless":
      return true;
    case "instance":
      return isSet("searxng");
    case "key":
    case "optional_key":
      return isSet(access.secret);
  }
}

/** Web pages open in the system browser (the app hands `window.open` of http(s) URLs to it). */
function openExternal(url: string): void {
  if (!/^https?:\/\//i.test(url)) {
    new Notice("Only web addresses can be opened.");
    return;
  }
  window.open(url, "_blank");
}
