// The panel and the modals from the keyboard alone, as a screen reader's user meets them: what the
// live regions are given (each thing said once), where the focus goes, and that Esc never takes a
// typed question with it. Over the workbench (real plugin, stand-in `obsidian`, sample vault,
// recorded Brave answers) in Chromium.
// Runs on its own (npx vitest run test/browser/keyboard-and-reader.test.ts): one browser, one static server.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ask, axeViolations, finished, lastTurn } from "./panel-driver";
import { CHROMIUM, chromiumAvailable, startSession, type BrowserSession } from "./workbench-server";

if (!chromiumAvailable) console.warn(`Keyboard and screen reader tests skipped: no Chromium at ${CHROMIUM}.`);

type Workbench = { runCommand(id: string): void; openedLinks(): string[]; openPromotePicker(tracePath: string): Promise<void>; record: { clipboard: string[] } };
const wb = <T>(page: Page, fn: (w: Workbench) => T) => page.evaluate<T>(`(${fn.toString()})(window.workbench)`);

/** Keeps, in order, every text a live region of the page is given (what a screen reader would read out). */
async function listen(page: Page): Promise<void> {
  await page.evaluate(() => {
    const said: string[] = [];
    (window as unknown as { said: string[] }).said = said;
    const last = new WeakMap<Element, string>();
    const hear = () => {
      for (const region of document.querySelectorAll("[aria-live], [role=status]")) {
        const text = region.textContent ?? "";
        if (last.get(region) === text) continue;
        last.set(region, text);
        if (text !== "") said.push(text);
      }
    };
    hear();
    new MutationObserver(hear).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}
const said = (page: Page) => page.evaluate(() => (window as unknown as { said: string[] }).said);

/** The focused element, as "TAG.first-class name". */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return el ? `${el.tagName}.${el.classList[0] ?? ""} ${el.getAttribute("aria-label") ?? el.textContent?.trim() ?? ""}` : "";
  });

/** What Chromium tells a screen reader about the focused element and the option it names as active. */
async function focusAndActiveOption(page: Page): Promise<{ focus: string; expanded: boolean; option: string | null; selected: boolean; list: string | null }> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as { nodes: AXNode[] };
    const prop = (n: AXNode | undefined, name: string) => n?.properties?.find((p) => p.name === name)?.value;
    // The page itself has the focus too, around the element that holds it.
    const focused = nodes.find((n) => !n.ignored && n.role?.value !== "RootWebArea" && prop(n, "focused")?.value === true);
    const activeId = prop(focused, "activedescendant")?.relatedNodes?.[0]?.backendDOMNodeId;
    const option = activeId === undefined ? undefined : nodes.find((n) => n.backendDOMNodeId === activeId);
    const list = option ? nodes.find((n) => n.nodeId === option.parentId) : undefined;
    const said = (n: AXNode) => `${String(n.role?.value)} ${String(n.name?.value)}`;
    return {
      focus: focused ? said(focused) : "",
      expanded: prop(focused, "expanded")?.value === true,
      option: option ? said(option) : null,
      selected: prop(option, "selected")?.value === true,
      list: list ? said(list) : null,
    };
  } finally {
    await cdp.detach();
  }
}
type AXValue = { value?: unknown; relatedNodes?: { backendDOMNodeId: number }[] };
type AXNode = { nodeId: string; parentId?: string; ignored: boolean; backendDOMNodeId?: number; role?: AXValue; name?: AXValue; properties?: { name: string; value: AXValue }[] };

const FRESH_QUESTION = "What changed in the latest Automerge release?";

describe.skipIf(!chromiumAvailable)("the keyboard and a screen reader in Chromium", () => {
  let started: Awaited<ReturnType<typeof startSession>> | null = null;
  const session = (): BrowserSession => started!.session;

  beforeAll(async () => {
    started = await startSession();
  });

  afterAll(async () => {
    await started?.close();
  });

  it("the ask box closed with Esc keeps the question typed: the next opening has it, selected, and Enter asks it", async () => {
    const { page, errors } = await session().open();
    await wb(page, (w) => w.runCommand("ask-question"));
    await page.waitForSelector(".vault-research-ask-input");
    await page.keyboard.type("What is local-first software?");
    await page.keyboard.press("Escape");
    expect(await page.locator(".modal-container").count()).toBe(0);

    await wb(page, (w) => w.runCommand("ask-question"));
    await page.waitForSelector(".vault-research-ask-input");
    expect(await page.inputValue(".vault-research-ask-input")).toBe("What is local-first software?");
    const selected = await page.locator(".vault-research-ask-input").evaluate((box: HTMLTextAreaElement) => box.value.slice(box.selectionStart, box.selectionEnd));
    expect(selected).toBe("What is local-first software?");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".vault-research-turn");
    await finished(page);
    expect(await page.locator(".vault-research-question").allTextContents()).toEqual(["What is local-first software?"]);
    // The panel took the question: its box has the focus for the next one, and the ask box starts empty again.
    expect(await focused(page)).toBe("TEXTAREA.vault-research-input Research question");
    await wb(page, (w) => w.runCommand("ask-question"));
    await page.waitForSelector(".vault-research-ask-input");
    expect(await page.inputValue(".vault-research-ask-input")).toBe("");
    await page.keyboard.press("Escape");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a run by keys alone: the suggestion to use the web is heard, the run's start and end are said once, Add to vault and Copy answer from the keyboard", async () => {
    const { page, errors } = await session().open("model=fake");
    await listen(page);
    await page.focus(".vault-research-input");
    await page.keyboard.type(FRESH_QUESTION);
    // Said once as it appeared, not again for each key typed after.
    expect(await said(page)).toEqual(["This looks like a question about the current state of things; your notes may be out of date. The button “Use the web for this question” is above the box."]);

    // The button is just before the box; chosen, the focus is back in the box and the choice is said.
    await page.keyboard.press("Shift+Tab");
    expect(await focused(page)).toBe("BUTTON.vault-research-suggestion-action Use the web for this question");
    await page.keyboard.press("Enter");
    expect(await focused(page)).toBe("TEXTAREA.vault-research-input Research question");
    expect(await page.locator(".vault-research-mode").inputValue()).toBe("always");
    expect((await said(page)).at(-1)).toBe("The web will be searched for this question (External web: Always).");

    await page.keyboard.press("Enter");
    await finished(page);
    const run = (await said(page)).slice(2);
    expect(run[0]).toBe("Starting…");
    expect(run.at(-1)).toMatch(/^Finished in [\d.]+ s\./);
    expect(new Set(run).size).toBe(run.length);
    expect(await focused(page)).toBe("TEXTAREA.vault-research-input Research question");

    // Each web title is read with its outside-vault label; Add to vault leads the focus on to the note it saved.
    const turn = lastTurn(page);
    const firstTitle = turn.locator(".vault-research-card.is-outside .vault-research-card-title").first();
    const described = await firstTitle.evaluate((t) => document.getElementById(t.getAttribute("aria-describedby") ?? "")?.textContent);
    expect(described).toBe("Outside vault · Brave · ephemeral");
    await turn.locator(".vault-research-card.is-outside .vault-research-card-action").first().focus();
    await page.keyboard.press("Enter");
    await page.waitForSelector(".vault-research-promote-link");
    expect(await focused(page)).toMatch(/^A\.internal-link \[\[/);
    expect((await said(page)).at(-1)).toMatch(/^Saved as \[\[/);

    await turn.getByRole("button", { name: "Copy answer" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (window as unknown as { workbench: Workbench }).workbench.record.clipboard.length === 1);
    // Copy pressed again is heard again: the live region holding "Answer copied." is emptied, then given it anew.
    await page.waitForFunction(() => (window as unknown as { said: string[] }).said.at(-1) === "Answer copied.");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (window as unknown as { said: string[] }).said.filter((text) => text === "Answer copied.").length === 2);
    expect((await said(page)).slice(-2)).toEqual(["Answer copied.", "Answer copied."]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("Esc stops a run and keeps the question typed meanwhile; Stop by keys leaves the focus on the button, now Send", async () => {
    const { page, errors } = await session().open("slowWeb=30000");
    await listen(page);
    await page.selectOption(".vault-research-mode", "always");
    await page.focus(".vault-research-input");
    await page.keyboard.type(FRESH_QUESTION);
    await page.keyboard.press("Enter");
    await page.waitForSelector(".vault-research-send.is-running");
    await page.keyboard.type("And what about Yjs?");
    await page.keyboard.press("Escape");
    await page.waitForSelector(".vault-research-turn.is-cancelled");
    expect(await page.inputValue(".vault-research-input")).toBe("And what about Yjs?");
    expect((await said(page)).at(-1)).toBe("Cancelled.");

    // The web was that turn's choice: this one asks it again, so it runs long enough to be stopped.
    await page.selectOption(".vault-research-mode", "always");
    await page.focus(".vault-research-input");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".vault-research-send.is-running");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toBe("BUTTON.vault-research-send Stop (Esc)");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".vault-research-turn:nth-child(2).is-cancelled");
    expect(await focused(page)).toBe("BUTTON.vault-research-send Send (Enter)");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the search modal says how many notes a search found, once", async () => {
    const { page, errors } = await session().open();
    await wb(page, (w) => w.runCommand("search-vault"));
    await page.waitForSelector(".prompt-input");
    await listen(page);
    await page.keyboard.insertText("crdt merge");
    await page.waitForSelector(".vault-research-search-result");
    const count = await page.locator(".suggestion-item").count();
    await page.waitForFunction(() => (window as unknown as { said: string[] }).said.length > 0);
    expect(await said(page)).toEqual([`${count} ${count === 1 ? "note" : "notes"} found.`]);
    await page.keyboard.press("Escape");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the search modal's list as a screen reader gets it: a combobox over a listbox, ↓ moves the option it announces, Enter opens it", async () => {
    const { page, errors } = await session().open();
    await wb(page, (w) => w.runCommand("search-vault"));
    await page.waitForSelector(".prompt-input");
    await page.keyboard.insertText("crdt merge");
    await page.waitForSelector(".vault-research-search-result");
    const titles = await page.locator(".suggestion-item .vault-research-search-result-title").allTextContents();
    const { option: firstOption, ...first } = await focusAndActiveOption(page);
    expect(first).toEqual({ focus: "combobox Search your notes", expanded: true, selected: true, list: "listbox Notes found" });
    // An option is named by all it shows, its title first.
    expect(firstOption?.startsWith(`option ${titles[0]} `)).toBe(true);
    await page.keyboard.press("ArrowDown");
    const { option: secondOption, selected } = await focusAndActiveOption(page);
    expect([secondOption?.startsWith(`option ${titles[1]} `), selected]).toEqual([true, true]);
    expect(await axeViolations(page, ".modal-container")).toEqual([]);
    const second = await page.locator(".suggestion-item.is-selected .vault-research-search-result-path").textContent();
    await page.keyboard.press("Enter");
    expect(await page.locator(".modal-container").count()).toBe(0);
    expect((await wb(page, (w) => w.openedLinks())).at(-1)).toContain(second!);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the trace's promote picker as a screen reader gets it: a combobox over a listbox, ↓ moves the option it announces; in a contrast theme the chosen result is outlined", async () => {
    const { page, errors } = await session().open();
    await ask(page, FRESH_QUESTION, "always");
    await finished(page);
    await lastTurn(page).locator(".vault-research-timeline summary").click();
    const trace = (await lastTurn(page).locator(".vault-research-stage[data-stage='trace'] .vault-research-stage-detail").textContent())!.replace(/^Trace note: /, "");
    await page.emulateMedia({ forcedColors: "active" });
    await page.evaluate(`window.workbench.openPromotePicker(${JSON.stringify(trace)})`);
    await page.waitForSelector(".vault-research-promote-suggestion");
    const titles = await page.locator(".suggestion-item .vault-research-promote-suggestion-title").allTextContents();
    expect(titles.length).toBeGreaterThan(1);
    const { option: firstOption, ...first } = await focusAndActiveOption(page);
    expect(first).toEqual({ focus: "combobox Which result should become a note in your vault?", expanded: true, selected: true, list: "listbox Results of this trace" });
    expect(firstOption?.startsWith(`option ${titles[0]} `)).toBe(true);
    await page.keyboard.press("ArrowDown");
    const { option: secondOption, selected } = await focusAndActiveOption(page);
    expect([secondOption?.startsWith(`option ${titles[1]} `), selected]).toEqual([true, true]);
    const outlined = await page.evaluate(() => {
      const outline = (selector: string) => getComputedStyle(document.querySelector(selector)!).outlineStyle;
      return { chosen: outline(".suggestion-item.is-selected"), other: outline(".suggestion-item:not(.is-selected)") };
    });
    expect(outlined).toEqual({ chosen: "solid", other: "none" });
    expect(await axeViolations(page, ".modal-container")).toEqual([]);
    await page.keyboard.press("Escape");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("in a contrast theme (forced colours) the note ↑↓ chose, the matched words and the dial's level still stand out from the rest", async () => {
    const { page, errors } = await session().open();
    await page.emulateMedia({ forcedColors: "active" });
    await wb(page, (w) => w.runCommand("search-vault"));
    await page.waitForSelector(".prompt-input");
    await page.keyboard.insertText("crdt merge");
    await page.waitForSelector(".vault-research-search-result .vault-research-match");
    await page.keyboard.press("ArrowDown");
    const drawn = await page.evaluate(() => {
      const style = (selector: string) => getComputedStyle(document.querySelector(selector)!);
      const chosen = style(".suggestion-item.is-selected");
      const other = style(".suggestion-item:not(.is-selected)");
      const mark = style(".suggestion-item .vault-research-match");
      const around = style(".suggestion-item .vault-research-search-result-snippet");
      const level = style(".vault-research-dial-position.is-checked");
      const otherLevel = style(".vault-research-dial-position:not(.is-checked)");
      // The theme's colours keep an author's transparency: a faint tint of the page's own colour is no mark.
      const opaque = (colour: string) => colour.startsWith("rgb(");
      return {
        chosenApart: chosen.outlineStyle !== "none" && other.outlineStyle === "none",
        markApart: opaque(mark.backgroundColor) && mark.backgroundColor !== around.backgroundColor,
        levelApart: opaque(level.backgroundColor) && level.backgroundColor !== otherLevel.backgroundColor,
      };
    });
    expect(drawn).toEqual({ chosenApart: true, markApart: true, levelApart: true });
    await page.keyboard.press("Escape");
    expect(errors).toEqual([]);
    await page.close();
  });
});
