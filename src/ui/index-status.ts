// The status bar item for the index, and the list of problems behind a click on it. What they
// say comes from src/index/index-status-text.ts (plain data in, text out); this file is the DOM.
import { Modal, type App } from "obsidian";
import { describeIndexStatus, type IndexIssue } from "../index/index-status-text";
import type { IndexStatus } from "../index/types";

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
