// @vitest-environment happy-dom
// What the composer says through the panel's live region: the suggestion to use the web appears
// above the box while the question is typed, where a screen reader's user, whose focus stays in the
// box, would not come across it.
import { afterEach, describe, expect, it } from "vitest";
import "../stubs/obsidian";
import { Composer } from "../../src/ui/composer";
import { defaultSettings } from "../../src/settings";

function composer(webOn: boolean): { box: HTMLTextAreaElement; root: HTMLElement; said: string[]; type(text: string): void } {
  const settings = defaultSettings();
  settings.external.enabled = webOn;
  const said: string[] = [];
  const root = document.body.createDiv();
  new Composer(root, () => settings, { send: () => undefined, cancel: () => undefined, busy: () => undefined, announce: (words) => void said.push(words) });
  const box = root.querySelector<HTMLTextAreaElement>(".vault-research-input")!;
  return {
    box,
    root,
    said,
    type: (text) => {
      box.value = text;
      box.dispatchEvent(new Event("input"));
    },
  };
}

afterEach(() => document.body.empty());

describe("the composer's suggestion to use the web, for a screen reader", () => {
  it("is said once as it appears, naming the button above the box, not again on every key typed", () => {
    const c = composer(true);
    c.type("What is CRDT?");
    expect(c.said).toEqual([]);
    c.type("What is the latest");
    c.type("What is the latest Automerge");
    c.type("What is the latest Automerge release?");
    expect(c.said).toEqual(["This looks like a question about the current state of things; your notes may be out of date. The button “Use the web for this question” is above the box."]);

    // Chosen with the keyboard: the button goes, the focus is back in the box, and the change is said.
    c.root.querySelector<HTMLButtonElement>(".vault-research-suggestion-action")!.click();
    expect(document.activeElement).toBe(c.box);
    expect(c.root.querySelector<HTMLSelectElement>(".vault-research-mode")!.value).toBe("always");
    expect(c.said.at(-1)).toBe("The web will be searched for this question (External web: Always).");
  });

  it("with the web off in settings, says what would look it up", () => {
    const c = composer(false);
    c.type("What is the latest Automerge release?");
    expect(c.said).toEqual(["This looks like a question about the current state of things; your notes may be out of date. Turn on external search in settings to look it up on the web."]);
  });
});
