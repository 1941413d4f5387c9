// What the status bar says about the index, and the list of problems behind a click on it.
// `describeIndexStatus` is plain data in, text out, so it can be tested without a DOM.
import { Modal, type App } from "obsidian";
import type { IndexStatus } from "../index/types";

/** A problem worth showing: a note that indexed oddly, or something that went wrong around the index. */
export interface IndexIssue {
  /** The note concerned, when there is one. */
  path?: string;
  message: string;
}

export interface IndexStatusText {
  /** Short text for the status bar. */
  text: string;
  /** Longer text for the tooltip. */
  tooltip: string;
  problemCount: number;
}

/** Everything worth listing: the index's own note problems first, then the plugin's. */
export function indexIssues(status: IndexStatus | null, pluginIssues: readonly IndexIssue[]): IndexIssue[] {
  const fromIndex = (status?.problems ?? []).map(({ path, problem }) => ({ path, message: problem.message }));
  return [...fromIndex, ...pluginIssues];
}

export function describeIndexStatus(status: IndexStatus | null, pluginIssues: readonly IndexIssue[], locale?: string): IndexStatusText {
  const problemCount = indexIssues(status, pluginIssues).length;
  const notes = status ? `${status.notes.toLocaleString(locale)} ${status.notes === 1 ? "note" : "notes"}` : "";
  let text: string;
  switch (status?.state ?? "empty") {
    case "building":
      text = status && status.notes > 0 ? `Indexing… ${notes}` : "Indexing…";
      break;
    case "updating":
      text = `Updating index… ${notes}`;
      break;
    case "ready":
      text = `${notes} indexed`;
      break;
    case "empty":
      text = status?.lastUpdated ? "No notes indexed" : "Index not built yet";
      break;
  }
  if (problemCount > 0) text += ` · ${problemCount} ${problemCount === 1 ? "problem" : "problems"}`;

  const lastUpdated = status?.lastUpdated;
  const tooltipParts = [
    lastUpdated ? `Last updated ${new Date(lastUpdated).toLocaleString(locale)}` : "Not updated yet",
    problemCount > 0 ? "Click to see the problems" : "Click for details",
  ];
  return { text, tooltip: tooltipParts.join(". ") + ".", problemCount };
}

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

  render(status: IndexStatus | null, pluginIssues: readonly IndexIssue[]): void {
    const described = describeIndexStatus(status, pluginIssues);
    this.el.setText(described.text);
    this.el.setAttr("aria-label", described.tooltip);
    this.el.toggleClass("vault-research-status-has-problems", described.problemCount > 0);
    const state = status?.state ?? "empty";
    this.el.toggleClass("vault-research-status-busy", state === "building" || state === "updating");
  }
}

export class IndexProblemsModal extends Modal {
  constructor(
    app: App,
    private readonly status: IndexStatus | null,
    private readonly issues: readonly IndexIssue[],
    private readonly openNote: (path: string) => void,
  ) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle("Vault index");
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("vault-research-problems");
    contentEl.createEl("p", { text: describeIndexStatus(this.status, []).tooltip.split(". ")[0] + "." });
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
