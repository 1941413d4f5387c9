// The composer: the question box and, beside it, this turn's choices — whether the web may be
// used, which providers, how fresh. Defaults come from settings; external web starts Off unless
// the user chose otherwise, and a question about the current state only *suggests* turning it on.
import { setIcon } from "obsidian";
import { planQuestion } from "../research/stages/plan";
import type { ExternalMode, Freshness, ProviderName, Settings } from "../settings";
import { FREE_SOURCES } from "../provider-names";
import { providerChoiceName } from "../evidence/labels";
import { DialControl } from "./dial-control";
import type { DialHost } from "./dial-host";

export interface TurnOptions {
  mode: ExternalMode;
  providers: ProviderName[];
  freshness: Freshness;
}

export interface ComposerCallbacks {
  send(question: string, options: TurnOptions): void;
  cancel(): void;
  /** Enter was pressed while a run is going: the question stays in the box. */
  busy(): void;
  /**
   * Said through the panel's one live region: a change of what the dial's level runs as, the
   * suggestion to use the web as it appears, and that the web was chosen through it.
   */
  announce?(words: string): void;
}

export const MODE_LABELS: Record<ExternalMode, string> = { never: "Off", "on-weak": "If vault is weak", always: "Always" };
export const FRESHNESS_LABELS: Record<string, string> = { any: "Any", pd: "24h", pw: "7d", pm: "31d", py: "1y" };

/** Past this many, "all of them" is counted rather than spelt out. */
const namedTogether = 3;

/**
 * Provider choices: each enabled provider alone, the free set together when it is enabled beside
 * others ("Free sources"), then all of them together ("Brave + Exa", or "All 7 sources"). Asking
 * several sources still asks only those that fit the question.
 */
export function providerChoices(enabled: readonly ProviderName[]): { value: string; label: string; providers: ProviderName[] }[] {
  const choices: { value: string; label: string; providers: ProviderName[] }[] = enabled.map((p) => ({ value: p, label: providerChoiceName(p), providers: [p] }));
  const free = enabled.filter((p) => (FREE_SOURCES as readonly ProviderName[]).includes(p));
  if (free.length === FREE_SOURCES.length && enabled.length > free.length) choices.push({ value: free.join(","), label: "Free sources", providers: free });
  if (enabled.length > 1) {
    const onlyFree = free.length === FREE_SOURCES.length && enabled.length === free.length;
    const label = onlyFree ? "Free sources" : enabled.length <= namedTogether ? enabled.map(providerChoiceName).join(" + ") : `All ${enabled.length} sources`;
    choices.push({ value: enabled.join(","), label, providers: [...enabled] });
  }
  return choices;
}

/**
 * A turn's choices as the settings allow them now: no web while external search is off, and only
 * sources still turned on (all of them when none of the chosen ones is). A turn asked again later
 * (Retry) had its choices made under the settings of then; the settings are the master switch.
 */
export function withinSettings(options: TurnOptions, settings: Settings): TurnOptions {
  const external = settings.external;
  const providers = options.providers.filter((p) => external.providers.includes(p));
  return { ...options, mode: external.enabled ? options.mode : "never", providers: providers.length > 0 ? providers : [...external.providers] };
}

export class Composer {
  readonly inputEl: HTMLTextAreaElement;
  private readonly modeEl: HTMLSelectElement;
  private readonly providerEl: HTMLSelectElement;
  private readonly freshnessEl: HTMLSelectElement;
  private readonly sendEl: HTMLButtonElement;
  private readonly suggestionEl: HTMLElement;
  /** How hard the run's vault search tries (remembered for the panel); absent without a dial host. */
  private readonly dial: DialControl | null = null;
  private running = false;
  /** The suggestion to use the web is showing (said once as it appears). */
  private suggesting = false;
  /**
   * The choices the user made here, kept when the settings are read again while they are still
   * offered: any setting saved meanwhile (the dial remembering its level, a sync) would otherwise
   * put the defaults back — the web on again for a question the user kept in the vault.
   */
  private readonly chosen = new Set<"mode" | "providers" | "freshness">();

  constructor(
    parent: HTMLElement,
    private readonly settings: () => Settings,
    private readonly callbacks: ComposerCallbacks,
    dialHost?: DialHost,
  ) {
    const root = parent.createDiv({ cls: "vault-research-composer" });
    this.suggestionEl = root.createDiv({ cls: "vault-research-suggestion", attr: { role: "note" } });
    this.suggestionEl.hide();

    const row = root.createDiv({ cls: "vault-research-composer-row" });
    this.inputEl = row.createEl("textarea", {
      cls: "vault-research-input",
      attr: { rows: 2, placeholder: "Ask about your notes…", "aria-label": "Research question", dir: "auto" },
    });
    this.sendEl = row.createEl("button", { cls: "vault-research-send mod-cta", attr: { type: "button" } });

    const controls = root.createDiv({ cls: "vault-research-controls" });
    this.modeEl = labelledSelect(controls, "External web", "vault-research-mode");
    this.providerEl = labelledSelect(controls, "Provider", "vault-research-provider");
    this.freshnessEl = labelledSelect(controls, "Freshness", "vault-research-freshness");
    if (dialHost) {
      const wrap = controls.createDiv({ cls: "vault-research-control vault-research-dial-control" });
      wrap.createSpan({ cls: "vault-research-control-label", text: "Vault search", attr: { "aria-hidden": "true" } });
      this.dial = new DialControl(wrap, dialHost, "research-panel", { compact: true, label: "Vault search level", ...(callbacks.announce ? { announce: (words: string) => callbacks.announce?.(words) } : {}) });
    }

    this.inputEl.addEventListener("keydown", (evt) => {
      if (evt.key === "Enter" && !evt.shiftKey && !evt.isComposing) {
        evt.preventDefault();
        this.submit();
      }
    });
    this.inputEl.addEventListener("input", () => this.updateSuggestion());
    this.modeEl.addEventListener("change", () => {
      this.chosen.add("mode");
      this.syncEnabled();
      this.updateSuggestion();
    });
    this.providerEl.addEventListener("change", () => this.chosen.add("providers"));
    this.freshnessEl.addEventListener("change", () => this.chosen.add("freshness"));
    this.sendEl.addEventListener("click", () => (this.running ? this.callbacks.cancel() : this.submit()));
    this.refresh();
    this.setRunning(false);
  }

  /** Re-reads settings: the choices offered and their defaults; a choice the user made that is still offered stays. */
  refresh(): void {
    const external = this.settings().external;
    // Web search turned off in settings ends a choice to use it; turned on again, the default applies.
    if (!external.enabled) this.chosen.delete("mode");
    const mode = this.modeEl.value;
    fill(this.modeEl, Object.entries(MODE_LABELS));
    this.modeEl.value = !external.enabled ? "never" : this.chosen.has("mode") ? mode : external.defaultMode;
    const providers = this.providerEl.value;
    fill(
      this.providerEl,
      providerChoices(external.providers).map((c) => [c.value, c.label]),
    );
    if (!this.keepChoice("providers", this.providerEl, providers)) {
      this.providerEl.value = external.providers.join(",") || (external.providers[0] ?? "");
      if (this.providerEl.selectedIndex < 0 && this.providerEl.options.length > 0) this.providerEl.selectedIndex = this.providerEl.options.length - 1;
    }
    const fresh = this.freshnessEl.value;
    const freshness = Object.entries(FRESHNESS_LABELS);
    if (!(external.freshness in FRESHNESS_LABELS)) freshness.push([external.freshness, external.freshness.replace("to", " to ")]);
    fill(this.freshnessEl, freshness);
    if (!this.keepChoice("freshness", this.freshnessEl, fresh)) this.freshnessEl.value = external.freshness;
    this.syncEnabled();
    this.updateSuggestion();
    this.dial?.refresh();
  }

  /** Selects the user's earlier `value` when they chose it and it is still offered; whether it did. */
  private keepChoice(choice: "providers" | "freshness", select: HTMLSelectElement, value: string): boolean {
    if (this.chosen.has(choice) && [...select.options].some((o) => o.value === value)) {
      select.value = value;
      return true;
    }
    this.chosen.delete(choice);
    return false;
  }

  /** The panel is closing: the dial stops listening to the host. */
  destroy(): void {
    this.dial?.destroy();
  }

  options(): TurnOptions {
    const providers = this.providerEl.value.split(",") as ProviderName[];
    return withinSettings({ mode: this.modeEl.value as ExternalMode, providers, freshness: this.freshnessEl.value }, this.settings());
  }

  /** While a run goes, the send button is a labelled Stop button. */
  setRunning(running: boolean): void {
    this.running = running;
    this.sendEl.empty();
    setIcon(this.sendEl.createSpan({ cls: "vault-research-send-icon", attr: { "aria-hidden": "true" } }), running ? "square" : "send");
    if (running) this.sendEl.createSpan({ cls: "vault-research-send-label", text: "Stop" });
    this.sendEl.setAttr("aria-label", running ? "Stop (Esc)" : "Send (Enter)");
    this.sendEl.toggleClass("is-running", running);
    this.sendEl.toggleClass("mod-cta", !running);
  }

  setQuestion(text: string): void {
    this.inputEl.value = text;
    this.updateSuggestion();
  }

  /** Puts `text` in the box to send later, unless the user is writing something there; whether it did. */
  keepForLater(text: string): boolean {
    if (this.inputEl.value.trim() !== "") return false;
    this.setQuestion(text);
    return true;
  }

  focus(): void {
    this.inputEl.focus();
  }

  private submit(): void {
    const question = this.inputEl.value.trim();
    if (question === "") return;
    if (this.running) {
      this.callbacks.busy();
      return;
    }
    this.callbacks.send(question, this.options());
    this.inputEl.value = "";
    // Using the web was a choice for that turn; the next turn starts from the default again.
    const external = this.settings().external;
    this.modeEl.value = external.enabled ? external.defaultMode : "never";
    this.chosen.delete("mode");
    this.syncEnabled();
    this.updateSuggestion();
  }

  private syncEnabled(): void {
    const external = this.settings().external;
    this.modeEl.disabled = !external.enabled;
    this.modeEl.setAttr("aria-label", external.enabled ? "External web for this question" : "External search is off in settings");
    const webOff = !external.enabled || this.modeEl.value === "never";
    this.providerEl.disabled = webOff || this.providerEl.options.length < 2;
    this.freshnessEl.disabled = webOff;
  }

  /**
   * Suggests, never switches: the user decides whether this question may leave the device. The
   * suggestion appears above the box as the question is typed, where a screen reader's user, whose
   * focus is in the box, would never come across it: it is said once as it appears.
   */
  private updateSuggestion(): void {
    const question = this.inputEl.value.trim();
    const flagged = question !== "" && this.modeEl.value === "never" && planQuestion(question).freshness.flagged;
    const appeared = flagged && !this.suggesting;
    this.suggesting = flagged;
    this.suggestionEl.empty();
    this.suggestionEl.toggle(flagged);
    if (!flagged) return;
    const why = "This looks like a question about the current state of things; your notes may be out of date.";
    this.suggestionEl.createSpan({ text: `${why} ` });
    if (!this.settings().external.enabled) {
      const off = "Turn on external search in settings to look it up on the web.";
      this.suggestionEl.createSpan({ text: off });
      if (appeared) this.callbacks.announce?.(`${why} ${off}`);
      return;
    }
    const use = this.suggestionEl.createEl("button", { cls: "vault-research-suggestion-action", text: "Use the web for this question", attr: { type: "button" } });
    if (appeared) this.callbacks.announce?.(`${why} The button “Use the web for this question” is above the box.`);
    use.addEventListener("click", () => {
      this.modeEl.value = "always";
      this.chosen.add("mode");
      this.syncEnabled();
      this.updateSuggestion();
      this.focus();
      // The button is gone and the focus back in the box: what changed is said, not only shown in the menu.
      this.callbacks.announce?.("The web will be searched for this question (External web: Always).");
    });
  }
}

function labelledSelect(parent: HTMLElement, label: string, cls: string): HTMLSelectElement {
  const wrap = parent.createEl("label", { cls: "vault-research-control" });
  wrap.createSpan({ cls: "vault-research-control-label", text: label });
  return wrap.createEl("select", { cls: ["dropdown", cls] });
}

function fill(select: HTMLSelectElement, options: [string, string][]): void {
  select.empty();
  for (const [value, text] of options) select.createEl("option", { value, text });
}
