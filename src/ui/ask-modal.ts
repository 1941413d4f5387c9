// "Ask a research question": a small prompt. The answer appears in the research panel, where
// the run can be watched, cancelled and followed up.
import { Modal, type App } from "obsidian";

/** Each opening's ids are its own: a closing box's may still be in the document as the next opens. */
let askCount = 0;

/**
 * A question typed and not asked (Esc, a click outside): the next opening starts with it. Esc is
 * how a keyboard user leaves the box to look something up, and it took their words with it.
 */
let unsent = "";

/**
 * Keeps `question` for the next opening, as if its box had been closed unasked: the panel could not
 * take it (a run going, and the panel's own box holding the user's draft, which it never replaces).
 */
export function keepUnsentQuestion(question: string): void {
  if (question.trim() !== "") unsent = question;
}

/** Forgets a kept question (tests; a new session starts empty anyway). */
export function forgetUnsentQuestion(): void {
  unsent = "";
}

export class AskQuestionModal extends Modal {
  private input: HTMLTextAreaElement | null = null;
  private asked = false;

  constructor(
    app: App,
    private readonly onAsk: (question: string) => void,
    private readonly initial = "",
  ) {
    super(app);
  }

  override onOpen(): void {
    this.setTitle("Ask a research question");
    this.asked = false;
    const { contentEl } = this;
    contentEl.empty();
    contentEl.addClass("vault-research-ask");
    const input = contentEl.createEl("textarea", {
      cls: "vault-research-ask-input",
      attr: { rows: 3, placeholder: "What do my notes say about…", "aria-label": "Research question", dir: "auto" },
    });
    // Text handed in (a selection) wins; otherwise what was typed last time, selected, so typing replaces it.
    const kept = this.initial === "" ? unsent : "";
    input.value = this.initial || kept;
    this.input = input;
    const ids = `vault-research-ask-${++askCount}`;
    // Both said with the box: Enter in a box of several lines would start a new one, and a press
    // that asked nothing must say why nothing happened.
    const hint = contentEl.createDiv({ cls: "vault-research-ask-hint", text: "Enter to ask, Shift+Enter for a new line. The answer opens in the research panel.", attr: { id: `${ids}-hint` } });
    const problem = contentEl.createDiv({ cls: ["vault-research-ask-hint", "vault-research-ask-problem"], attr: { id: `${ids}-problem`, role: "status" } });
    input.setAttr("aria-describedby", `${hint.id} ${problem.id}`);
    const buttons = contentEl.createDiv({ cls: "modal-button-container" });
    const ask = buttons.createEl("button", { cls: "mod-cta", text: "Ask", attr: { type: "button" } });
    const submit = () => {
      const question = input.value.trim();
      if (question === "") {
        input.setAttr("aria-invalid", "true");
        problem.setText("Type a question first.");
        input.focus();
        return;
      }
      unsent = "";
      this.asked = true;
      this.close();
      this.onAsk(question);
    };
    input.addEventListener("input", () => {
      input.removeAttribute("aria-invalid");
      problem.setText("");
    });
    ask.addEventListener("click", submit);
    input.addEventListener("keydown", (evt) => {
      if (evt.key === "Enter" && !evt.shiftKey && !evt.isComposing) {
        evt.preventDefault();
        submit();
      }
    });
    // At once, so the first keystrokes land in the box; and again after the app has placed its own focus.
    input.focus();
    if (kept !== "") input.select();
    window.setTimeout(() => input.focus(), 0);
  }

  override onClose(): void {
    if (!this.asked && this.input) unsent = this.input.value.trim() === "" ? "" : this.input.value;
    this.input = null;
    this.contentEl.empty();
  }
}
