// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import "../stubs/obsidian";
import { suggestionListbox } from "../../src/ui/suggestion-listbox";

/** The app's chooser, as it draws: plain divs, the chosen one marked by a class. */
function draw(list: HTMLElement, titles: string[], selected = 0): HTMLElement[] {
  list.empty();
  return titles.map((title, i) => list.createDiv({ cls: i === selected ? "suggestion-item is-selected" : "suggestion-item", text: title }));
}

function select(items: HTMLElement[], index: number): void {
  items.forEach((item, i) => item.toggleClass("is-selected", i === index));
}

/** Mutation observers answer after the current task's microtasks. */
const settled = () => new Promise((resolve) => window.setTimeout(resolve, 0));

function setUp() {
  const input = document.body.createEl("input", { type: "text" });
  const list = document.body.createDiv("prompt-results");
  const stop = suggestionListbox(input, list, "Notes found");
  return { input, list, stop };
}

describe("a suggestion list for a screen reader", () => {
  it("makes the query box a combobox that controls the list, collapsed while nothing is listed", () => {
    const { input, list, stop } = setUp();
    expect(input.getAttribute("role")).toBe("combobox");
    expect(input.getAttribute("aria-autocomplete")).toBe("list");
    expect(input.getAttribute("aria-controls")).toBe(list.id);
    expect(list.id).not.toBe("");
    expect(input.getAttribute("aria-expanded")).toBe("false");
    expect(input.hasAttribute("aria-activedescendant")).toBe(false);
    stop();
  });

  it("gives each suggestion the drawn list holds an id and the option role, and the list a listbox's role and name", async () => {
    const { input, list, stop } = setUp();
    const items = draw(list, ["Kites", "Boats", "Gliders"]);
    await settled();
    expect(list.getAttribute("role")).toBe("listbox");
    expect(list.getAttribute("aria-label")).toBe("Notes found");
    expect(items.map((i) => i.getAttribute("role"))).toEqual(["option", "option", "option"]);
    expect(new Set(items.map((i) => i.id)).size).toBe(3);
    expect(items.map((i) => i.getAttribute("aria-selected"))).toEqual(["true", null, null]);
    expect(input.getAttribute("aria-expanded")).toBe("true");
    expect(input.getAttribute("aria-activedescendant")).toBe(items[0].id);
    stop();
  });

  it("follows the app's selection as ↑↓ or the pointer moves it: the active descendant is the option marked selected", async () => {
    const { input, list, stop } = setUp();
    const items = draw(list, ["Kites", "Boats", "Gliders"]);
    await settled();
    select(items, 2);
    await settled();
    expect(input.getAttribute("aria-activedescendant")).toBe(items[2].id);
    expect(items.map((i) => i.getAttribute("aria-selected"))).toEqual([null, null, "true"]);
    select(items, 1);
    await settled();
    expect(input.getAttribute("aria-activedescendant")).toBe(items[1].id);
    stop();
  });

  it("a list drawn anew for the next keystroke gets new options, and the active descendant names one of them", async () => {
    const { input, list, stop } = setUp();
    const before = draw(list, ["Kites", "Boats"]);
    await settled();
    const after = draw(list, ["Gliders"]);
    await settled();
    expect(after[0].id).not.toBe("");
    expect(before.map((i) => i.id)).not.toContain(after[0].id);
    expect(input.getAttribute("aria-activedescendant")).toBe(after[0].id);
    stop();
  });

  it("a list with nothing in it but the app's empty line is no listbox, and the box names no option", async () => {
    const { input, list, stop } = setUp();
    draw(list, ["Kites"]);
    await settled();
    list.empty();
    list.createDiv({ cls: "suggestion-empty", text: "No notes match." });
    await settled();
    expect(list.hasAttribute("role")).toBe(false);
    expect(list.hasAttribute("aria-label")).toBe(false);
    expect(input.getAttribute("aria-expanded")).toBe("false");
    expect(input.hasAttribute("aria-activedescendant")).toBe(false);
    expect(list.querySelector(".suggestion-empty")?.hasAttribute("role")).toBe(false);
    stop();
  });

  it("once stopped, leaves the list alone", async () => {
    const { input, list, stop } = setUp();
    stop();
    draw(list, ["Kites"]);
    await settled();
    expect(list.hasAttribute("role")).toBe(false);
    expect(input.hasAttribute("aria-activedescendant")).toBe(false);
  });
});
