// The panel's status line: what the run is doing now ("Searching the web with Brave…"), an
// indicator that moves while it runs, the time so far, and how it ended. Its text is the panel's
// one polite live region, so a screen reader hears each step and the outcome — and nothing else
// of the chat. The ticking time sits beside it, outside the live region, so it is never read out.
import { seconds } from "./run-timeline";

export class RunStatus {
  private readonly el: HTMLElement;
  private readonly textEl: HTMLElement;
  private readonly elapsedEl: HTMLElement;
  private timer: number | null = null;
  private startedAt = 0;

  constructor(parent: HTMLElement) {
    this.el = parent.createDiv({ cls: "vault-research-run-status" });
    this.el.createSpan({ cls: "vault-research-run-indicator", attr: { "aria-hidden": "true" } });
    this.textEl = this.el.createSpan({ cls: "vault-research-run-text", attr: { role: "status", "aria-live": "polite" } });
    this.elapsedEl = this.el.createSpan({ cls: "vault-research-run-elapsed" });
  }

  start(text: string): void {
    this.stopTimer();
    this.el.addClass("is-running");
    this.startedAt = Date.now();
    this.say(text);
    this.tick();
    this.timer = window.setInterval(() => this.tick(), 1000);
  }

  /** Says `text` (only when it changed: a live region repeats what it is given). */
  say(text: string): void {
    if (this.textEl.textContent !== text) this.textEl.setText(text);
  }

  finish(text: string): void {
    this.stopTimer();
    this.el.removeClass("is-running");
    this.elapsedEl.setText("");
    this.say(text);
  }

  /** Seconds since the run started, for the closing words ("Finished in 1.2 s"). */
  elapsed(): string {
    return seconds(Date.now() - this.startedAt);
  }

  clear(): void {
    this.stopTimer();
    this.el.removeClass("is-running");
    this.elapsedEl.setText("");
    this.say("");
  }

  private tick(): void {
    this.elapsedEl.setText(`${Math.floor((Date.now() - this.startedAt) / 1000)} s`);
  }

  private stopTimer(): void {
    if (this.timer !== null) window.clearInterval(this.timer);
    this.timer = null;
  }
}
