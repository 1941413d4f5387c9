// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, openModals, Vault } from "../stubs/obsidian";
import { AskQuestionModal, forgetUnsentQuestion } from "../../src/ui/ask-modal";

function openAsk(asked: string[], initial = ""): { modal: AskQuestionModal; input: HTMLTextAreaElement } {
  const modal = new AskQuestionModal(new App({ vault: new Vault() }) as unknown as ObsidianApp, (q) => asked.push(q), initial);
  modal.open();
  return { modal, input: modal.contentEl.querySelector("textarea")! };
}

function pressEnter(input: HTMLElement): void {
  input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, cancelable: true }));
}

/** The text of the elements `aria-describedby` names: what a screen reader reads after the box's name. */
function description(el: Element): string {
  const ids = el.getAttribute("aria-describedby")?.split(/\s+/) ?? [];
  return ids.map((id) => document.getElementById(id)?.textContent ?? "").filter((t) => t !== "").join(" ");
}

describe("ask a research question", () => {
  beforeEach(() => {
    openModals.length = 0;
    forgetUnsentQuestion();
  });
  afterEach(() => openModals.forEach((m) => m.close()));

  it("asks the trimmed question and closes on Enter", () => {
    const asked: string[] = [];
    const { input } = openAsk(asked);
    input.value = "  كيف تعمل الطائرات الورقية؟ 🪁  ";
    pressEnter(input);
    expect(asked).toEqual(["كيف تعمل الطائرات الورقية؟ 🪁"]);
    expect(openModals).toHaveLength(0);
  });

  it("tells a screen reader that Enter asks: in a box of several lines it would otherwise start a new one", () => {
    const { input } = openAsk([]);
    expect(description(input)).toBe("Enter to ask, Shift+Enter for a new line. The answer opens in the research panel.");
  });

  it("on Enter or Ask with only spaces, stays open and says a question is needed, in the box's description, until typing starts", () => {
    const asked: string[] = [];
    const { modal, input } = openAsk(asked);
    input.value = "   \n ";
    pressEnter(input);
    expect(asked).toEqual([]);
    expect(openModals).toEqual([modal]);
    expect(input.getAttribute("aria-invalid")).toBe("true");
    const problem = modal.contentEl.querySelector("[role=status]")!;
    expect(problem.textContent).toBe("Type a question first.");
    expect(description(input)).toContain("Type a question first.");

    // The Ask button says the same and gives the focus back to the box.
    input.value = "";
    modal.contentEl.querySelector<HTMLButtonElement>("button.mod-cta")!.click();
    expect(asked).toEqual([]);
    expect(document.activeElement).toBe(input);

    input.value = "k";
    input.dispatchEvent(new Event("input"));
    expect(input.hasAttribute("aria-invalid")).toBe(false);
    expect(problem.textContent).toBe("");
  });

  it("keeps a question closed unasked (Esc) for the next opening, selected, so Enter asks it or typing replaces it", () => {
    const asked: string[] = [];
    const first = openAsk(asked);
    first.input.value = "What do my notes say about kites?";
    first.input.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
    expect(openModals).toHaveLength(0);
    expect(asked).toEqual([]);

    const again = openAsk(asked);
    expect(again.input.value).toBe("What do my notes say about kites?");
    expect([again.input.selectionStart, again.input.selectionEnd]).toEqual([0, again.input.value.length]);
    pressEnter(again.input);
    expect(asked).toEqual(["What do my notes say about kites?"]);

    // Asked, it is gone; a blank box closed keeps nothing; text handed in (a selection) wins over a kept one.
    expect(openAsk(asked).input.value).toBe("");
    openModals.forEach((m) => m.close());
    const kept = openAsk(asked);
    kept.input.value = "half a thought";
    kept.modal.close();
    expect(openAsk(asked, "the selection").input.value).toBe("the selection");
  });
});
