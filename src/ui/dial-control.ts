// The search dial: one control with four positions — Lexical, Hybrid, Multi-field, Rerank — a
// segmented group of native radio buttons, so arrow keys move it and screen readers announce
// "radio, 2 of 4" without any code of ours. A level that cannot run yet is marked and says why,
// yet stays choosable: the search then runs the highest level that can and says which one ran.
// Each surface (search modal, research panel) remembers its own position through the host.
import { DIAL_LEVEL_NAMES, DIAL_LEVELS, type DialLevel, type DialNotice } from "../index/dial/dial-types";
import type { DialHost, DialLevelReadiness, DialSurface } from "./dial-host";

export interface DialControlOptions {
  /** Smaller segments, for the research panel's composer. */
  compact?: boolean;
  /** The group's accessible name (default "Search level"). */
  label?: string;
  /** The user moved the dial (already saved for the surface). */
  onChange?: (level: DialLevel) => void;
  /**
   * Where the dial says that the level searches run at changed without the user moving it ("Hybrid
   * is ready."): the surface's own live region (the panel has one, and only one).
   */
  announce?: (words: string) => void;
}

/** Why a level is not ready, in the words the dial shows (a readiness notice names its reason). */
export function notReadyReason(notice: DialNotice | null): string {
  if (!notice) return "not ready";
  if (notice.kind !== "level_unavailable") return notice.message;
  switch (notice.reason) {
    case "no_embedder":
      return "no embedding model is set in settings";
    case "no_vectors":
      return "the vault has no vectors from this embedding model yet";
    case "no_chat_model":
      return "no chat model is set in settings";
  }
}

/** The level a search at `wanted` will run at: the highest ready one at or below it. */
export function levelThatWillRun(wanted: DialLevel, readiness: readonly DialLevelReadiness[]): DialLevel {
  for (let level = wanted; level > 1; level--) {
    if (readiness.find((r) => r.level === level)?.ready) return level;
  }
  return 1;
}

/** "Hybrid is not ready (…), so searches run at Lexical.", or "Hybrid is ready." when it runs. */
function runningWords(level: DialLevel, runs: DialLevel, readiness: readonly DialLevelReadiness[]): string {
  if (runs === level) return `${DIAL_LEVEL_NAMES[level]} is ready.`;
  const notice = readiness.find((r) => r.level === level)?.notice ?? null;
  return `${DIAL_LEVEL_NAMES[level]} is not ready (${notReadyReason(notice)}), so searches run at ${DIAL_LEVEL_NAMES[runs]}.`;
}

let controlCount = 0;

export class DialControl {
  readonly el: HTMLElement;
  private readonly groupEl: HTMLElement;
  private readonly reasonEl: HTMLElement;
  /** The level searches ran at when last shown; null before the first. */
  private running: DialLevel | null = null;
  private readonly inputs = new Map<DialLevel, HTMLInputElement>();
  private readonly positions = new Map<DialLevel, { label: HTMLElement; state: HTMLElement }>();
  private current: DialLevel;
  private readonly unsubscribe: () => void;

  constructor(
    parent: HTMLElement,
    private readonly host: DialHost,
    private readonly surface: DialSurface,
    private readonly options: DialControlOptions = {},
  ) {
    const name = `vault-research-dial-${++controlCount}`;
    this.current = host.level(surface);
    this.el = parent.createDiv({ cls: ["vault-research-dial", ...(options.compact ? ["is-compact"] : [])] });
    this.groupEl = this.el.createDiv({ cls: "vault-research-dial-group", attr: { role: "radiogroup", "aria-label": options.label ?? "Search level" } });
    for (const level of DIAL_LEVELS) this.addPosition(level, name);
    this.reasonEl = this.el.createDiv({ cls: "vault-research-dial-reason", attr: { id: `${name}-reason` } });
    this.groupEl.setAttr("aria-describedby", `${name}-reason`);
    this.unsubscribe = host.onChange(() => this.refresh());
    this.refresh();
  }

  level(): DialLevel {
    return this.current;
  }

  /** Re-reads readiness (an embedding job finished, settings changed) and the remembered level. */
  refresh(): void {
    const chosen = this.current;
    this.current = this.host.level(this.surface);
    const readiness = this.host.readiness();
    // Said only when the level the dial shows stayed and what runs under it changed: the reason
    // line is not a live region, as the embedding job's progress rewrites it every few seconds.
    const runs = levelThatWillRun(this.current, readiness);
    if (this.running !== null && chosen === this.current && runs !== this.running) this.options.announce?.(runningWords(this.current, runs, readiness));
    for (const level of DIAL_LEVELS) {
      const ready = readiness.find((r) => r.level === level);
      const position = this.positions.get(level)!;
      const notReady = level !== 1 && ready?.ready !== true;
      position.label.toggleClass("is-not-ready", notReady);
      position.state.setText(notReady ? `, not ready: ${notReadyReason(ready?.notice ?? null)}` : "");
      if (notReady) position.label.setAttr("title", `Not ready: ${notReadyReason(ready?.notice ?? null)}`);
      else position.label.removeAttribute("title");
    }
    this.show(this.current, readiness);
  }

  /** Stops listening to the host (the modal closed, the panel went away). */
  destroy(): void {
    this.unsubscribe();
  }

  private addPosition(level: DialLevel, name: string): void {
    const label = this.groupEl.createEl("label", { cls: "vault-research-dial-position", attr: { "data-level": String(level) } });
    const input = label.createEl("input", { cls: "vault-research-dial-input", type: "radio", attr: { name, value: String(level) } });
    label.createSpan({ cls: "vault-research-dial-name", text: DIAL_LEVEL_NAMES[level] });
    const state = label.createSpan({ cls: "vault-research-visually-hidden" });
    input.addEventListener("change", () => {
      if (input.checked) void this.choose(level);
    });
    this.inputs.set(level, input);
    this.positions.set(level, { label, state });
  }

  private async choose(level: DialLevel): Promise<void> {
    this.current = level;
    this.show(level, this.host.readiness());
    // Saved first: a host remembers the level at once, so whatever onChange starts reads it back.
    const saved = this.host.saveLevel(this.surface, level);
    this.options.onChange?.(level);
    await saved;
  }

  private show(level: DialLevel, readiness: readonly DialLevelReadiness[]): void {
    for (const [l, input] of this.inputs) {
      input.checked = l === level;
      this.positions.get(l)!.label.toggleClass("is-checked", l === level);
    }
    const runs = levelThatWillRun(level, readiness);
    this.running = runs;
    const words = runs === level ? "" : runningWords(level, runs, readiness);
    const status = this.host.embeddingStatus();
    this.reasonEl.setText(words && status ? `${words} ${status}` : words);
    this.reasonEl.toggle(words !== "");
  }
}
