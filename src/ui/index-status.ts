// The status bar items for the index and for the embedding job, and the list of problems behind a
// click on the index's. What they say comes from src/index/index-status-text.ts and
// src/index/embeddings/progress-words.ts (plain data in, text out); this file is the DOM.
import { Modal, type App } from "obsidian";
import type { EmbeddingProgress } from "../index/embeddings/embedding-job";
import { embeddingProgressWords } from "../index/embeddings/progress-words";
import { describeIndexStatus, indexStatusLine, lastUpdatedWords, type IndexIssue } from "../index/index-status-text";
import type { IndexStatus } from "../index/types";
import { asSentence } from "../text/sentence-ends";

// main.ts lists the issues it hands to the modal through here.
export { indexIssues } from "../index/index-status-text";

/** The status bar item. It only renders; the plugin decides when. */
export class IndexStatusBar {
  constructor(
    private readonly el: HTMLElement,
    onClick: () => void,
  ) {
    el.addClass("vault-research-status", "mod-clickable");
    el.setAttr("role", "button");
    el.onClickEvent(onClick);
  }

  /** @param total while a build runs, the notes it will hold: the text says "N of M notes", not only a rising count. */
  render(status: IndexStatus | null, pluginIssues: readonly IndexIssue[], total: number | null = null): void {
    const described = describeIndexStatus(status, pluginIssues);
    const text = status?.state === "building" && total !== null ? buildingText(status.notes, total, described.problemCount) : described.text;
    this.el.setText(text);
    this.el.setAttr("aria-label", withShownText(text, described.tooltip));
    this.el.toggleClass("vault-research-status-has-problems", described.problemCount > 0);
    const state = status?.state ?? "empty";
    this.el.toggleClass("vault-research-status-busy", state === "building" || state === "updating");
  }
}

/** What a question asked during the first build waits for: "Waiting for the index: 120 of 900 notes…". */
export function waitingForIndexText(notes: number, total: number | null): string {
  if (total === null) return "Waiting for the index…";
  return `Waiting for the index: ${Math.min(notes, total).toLocaleString()} of ${total.toLocaleString()} ${total === 1 ? "note" : "notes"}…`;
}

function buildingText(notes: number, total: number, problems: number): string {
  const done = Math.min(notes, total);
  const text = `Indexing… ${done.toLocaleString()} of ${total.toLocaleString()} ${total === 1 ? "note" : "notes"}`;
  return problems > 0 ? `${text} · ${problems} ${problems === 1 ? "problem" : "problems"}` : text;
}

/** The embedding job's item: its progress in words while it runs, paused or stopped; hidden otherwise. A click pauses or resumes. */
export class EmbeddingStatusBar {
  private state: EmbeddingProgress["state"] | null = null;

  constructor(
    private readonly el: HTMLElement,
    onClick: (state: EmbeddingProgress["state"] | null) => void,
  ) {
    el.addClass("vault-research-embedding-status", "mod-clickable");
    el.setAttr("role", "button");
    el.onClickEvent(() => onClick(this.state));
    this.render(null);
  }

  render(progress: EmbeddingProgress | null): void {
    this.state = progress?.state ?? null;
    // Done (or never started): the dial's readiness says what is ready; the bar stays quiet.
    const shown = progress !== null && progress.state !== "idle" && progress.state !== "done";
    this.el.toggle(shown);
    const text = shown ? embeddingProgressWords(progress) : "";
    this.el.setText(text);
    const action = progress?.state === "running" ? "Click to pause embedding." : progress?.state === "paused" || progress?.state === "cancelled" || progress?.state === "failed" ? "Click to resume embedding." : "";
    this.el.setAttr("aria-label", text ? withShownText(text, action) : action);
  }
}

/**
 * The item's aria-label — the app's tooltip, and what a screen reader reads in place of the item's
 * text: the text first, then the tooltip, so neither the progress nor the problem count is lost to
 * "Click to pause embedding." alone.
 */
function withShownText(text: string, tooltip: string): string {
  if (!tooltip || tooltip.startsWith(text)) return tooltip || text;
  return `${asSentence(text)} ${tooltip}`;
}

/**
 * When the index was last updated, as the tooltip's first sentence says it. Written out, not cut from
 * the tooltip at its first ". ": a date may have one inside ("2023. 11. 14." in Korean, Hungarian, Czech).
 */
function lastUpdatedLine(status: IndexStatus | null): string {
  return `${lastUpdatedWords(status?.lastUpdated)}.`;
}

export class IndexProblemsModal extends Modal {
  /**
   * @param embedding the embedding job's progress in words, when a job exists: on a phone, which has
   *   no status bar, this box (the "Show index status" command) is the only place it is seen.
   */
  constructor(
    app: App,
    private readonly status: IndexStatus | null,
    private readonly issues: readonly IndexIssue[],
    private readonly openNote: (path: string) => void,
    private readonly embedding: string | null = null,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle("Vault index");
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("vault-research-problems");
        // `issues` already holds the index's own problems: counted again, two problems read as four.
    contentEl.createEl("p", { text: `${indexStatusLine(this.status, this.issues.length)}.`, cls: "vault-research-problems-state" });
    if (this.embedding) contentEl.createEl("p", { text: this.embedding, cls: "vault-research-problems-embedding" });
    contentEl.createEl("p", { text: lastUpdatedLine(this.status) });
    if (this.issues.length === 0) {
      contentEl.createEl("p", { text: "No problems found.", cls: "vault-research-problems-none" });
      return;
    }
    const list = contentEl.createEl("ul", { cls: "vault-research-problems-list" });
    for (const issue of this.issues) {
      const item = list.createEl("li");
      if (issue.path !== undefined) {
        const path = issue.path;
        const link = item.createEl("a", { text: path, cls: "vault-research-problems-path", href: "#" });
        link.addEventListener("click", (evt) => {
          evt.preventDefault();
          this.close();
          this.openNote(path);
        });
      }
      item.createSpan({ text: issue.message, cls: "vault-research-problems-message" });
    }
  }

  override onClose(): void {
    this.contentEl.empty();
  }
}
