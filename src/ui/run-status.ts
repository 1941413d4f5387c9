// The panel's status line: what the run is doing now ("Searching the web with Brave…"), an
// indicator that moves while it runs, the time so far, and how it ended. What a screen reader
// hears goes through a separate, visually hidden polite live region, and not every step reaches
// it: a run passes a dozen stages in a second or two, so a step is announced only when it is
// still going after STEP_PAUSE_MS (the web search or the model a user is waiting on). The start,
// the outcome and answers to what the user did (a busy Enter, "Add to vault") are said at once,
// and again when the user does the same again (a second Copy): a step of the run is said once.
// The ticking time sits beside the text, outside the live region, so it is never read out.
import { stopwatch, systemClock } from "../ports";
import { seconds } from "./run-timeline";

/** How long a step must last before it is announced. */
export const STEP_PAUSE_MS = 2000;

/**
 * How long the live region stays empty before the same words are given to it again. A screen reader
 * reads a live region's changes: the same text set again is no change, and one cleared and set in the
 * same moment is often read as none either. Angular CDK's LiveAnnouncer clears and waits as long.
 */
export const SAY_AGAIN_PAUSE_MS = 100;

export class RunStatus {
  private readonly el: HTMLElement;
  private readonly textEl: HTMLElement;
  private readonly elapsedEl: HTMLElement;
  private readonly announcerEl: HTMLElement;
  private timer: number | null = null;
  private stepTimer: number | null = null;
  /** The same words again, to be given back to the emptied live region. */
  private sayAgainTimer: number | null = null;
  /** The step last announced in this run. */
  private stepSaid = "";
  /**
   * ms since the run started, on the monotonic reading: on the wall clock, one set back during a run
   * showed "-3597 s" ticking and "Finished in -3597.0 s".
   */
  private sinceStart: () => number = () => 0;

  constructor(parent: HTMLElement) {
    this.el = parent.createDiv({ cls: "vault-research-run-status" });
    this.el.createSpan({ cls: "vault-research-run-indicator", attr: { "aria-hidden": "true" } });
    this.textEl = this.el.createSpan({ cls: "vault-research-run-text" });
    this.elapsedEl = this.el.createSpan({ cls: "vault-research-run-elapsed" });
    this.announcerEl = this.el.createSpan({ cls: ["vault-research-run-announcer", "vault-research-visually-hidden"], attr: { role: "status", "aria-live": "polite" } });
  }

  start(text: string): void {
    this.stopTimer();
    this.el.addClass("is-running");
    this.sinceStart = stopwatch(systemClock);
    this.stepSaid = "";
    this.say(text);
    this.tick();
    this.timer = window.setInterval(() => this.tick(), 1000);
  }

  /**
   * A step of the run: shown at once, announced only if it is still the step after STEP_PAUSE_MS,
   * and not again when it was the last step announced: words said in between (a busy Enter, the
   * dial's news) left the step going, and hearing it twice sounded like a new one had started.
   */
  progress(text: string): void {
    this.show(text);
    this.cancelStep();
    this.stepTimer = window.setTimeout(() => {
      this.stepTimer = null;
      // Nor when the live region holds it already (said as the wait began): a step is said once.
      if (this.textEl.textContent !== text || text === this.stepSaid || this.announcerEl.textContent === text) return;
      this.stepSaid = text;
      this.announce(text);
    }, STEP_PAUSE_MS);
  }

  /** Announces `text` without changing the line shown: news from beside the run (the dial's level became ready). */
  aside(text: string): void {
    this.announce(text);
  }

  /** Shows and announces `text` at once. */
  say(text: string): void {
    this.cancelStep();
    this.show(text);
    this.announce(text);
  }

  finish(text: string): void {
    this.stopTimer();
    this.el.removeClass("is-running");
    this.elapsedEl.setText("");
    this.say(text);
  }

  /** Seconds since the run started, for the closing words ("Finished in 1.2 s"). */
  elapsed(): string {
    return seconds(this.sinceStart());
  }

  clear(): void {
    this.stopTimer();
    this.el.removeClass("is-running");
    this.elapsedEl.setText("");
    this.say("");
  }

  private show(text: string): void {
    if (this.textEl.textContent !== text) this.textEl.setText(text);
  }

  /**
   * Gives `text` to the live region. The words it holds already (a second Copy's "Answer copied.")
   * are said again: the region is emptied and given them once SAY_AGAIN_PAUSE_MS has passed, unless
   * other words come first. What must not be said twice, a step, is kept out by `progress`.
   */
  private announce(text: string): void {
    this.cancelSayAgain();
    if (this.announcerEl.textContent !== text) {
      this.announcerEl.setText(text);
      return;
    }
    if (text === "") return;
    this.announcerEl.setText("");
    this.sayAgainTimer = window.setTimeout(() => {
      this.sayAgainTimer = null;
      this.announcerEl.setText(text);
    }, SAY_AGAIN_PAUSE_MS);
  }

  private cancelSayAgain(): void {
    if (this.sayAgainTimer !== null) window.clearTimeout(this.sayAgainTimer);
    this.sayAgainTimer = null;
  }

  private tick(): void {
    this.elapsedEl.setText(`${Math.floor(this.sinceStart() / 1000)} s`);
  }

  private cancelStep(): void {
    if (this.stepTimer !== null) window.clearTimeout(this.stepTimer);
    this.stepTimer = null;
  }

  private stopTimer(): void {
    this.cancelStep();
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
  }
}
