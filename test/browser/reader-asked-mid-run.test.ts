// A question asked from the Ask box while a run is going and the panel's box holds a draft, and the
// words a run's end and its Copy leave in the panel's live region, as a screen reader's user meets
// them: over the workbench (real plugin, stand-in `obsidian`, sample vault) in Chromium.
// Runs on its own (npx vitest run test/browser/reader-asked-mid-run.test.ts): one browser, one static server.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KEPT_IN_ASK_BOX } from "../../src/ui/research-view";
import { finished, lastTurn } from "./panel-driver";
import { CHROMIUM, chromiumAvailable, startSession, type BrowserSession } from "./workbench-server";

if (!chromiumAvailable) console.warn(`Asked-mid-run tests skipped: no Chromium at ${CHROMIUM}.`);

type Workbench = { runCommand(id: string): void; record: { clipboard: string[] } };
const wb = <T>(page: Page, fn: (w: Workbench) => T) => page.evaluate<T>(`(${fn.toString()})(window.workbench)`);

/** What the panel's live region is given, in order, each change once. */
async function listen(page: Page): Promise<void> {
  await page.evaluate(() => {
    const said: string[] = [];
    (window as unknown as { said: string[] }).said = said;
    const region = document.querySelector(".vault-research-run-announcer")!;
    const hear = () => {
      const text = region.textContent ?? "";
      if (text !== "" && text !== said.at(-1)) said.push(text);
    };
    new MutationObserver(hear).observe(region, { subtree: true, childList: true, characterData: true });
  });
}
const said = (page: Page) => page.evaluate(() => (window as unknown as { said: string[] }).said);

describe.skipIf(!chromiumAvailable)("a question asked mid-run, and how a run's end is said, in Chromium", () => {
  let started: Awaited<ReturnType<typeof startSession>> | null = null;
  const session = (): BrowserSession => started!.session;

  beforeAll(async () => {
    started = await startSession();
  });

  afterAll(async () => {
    await started?.close();
  });

  it("a question from the Ask box, with a run going and a draft in the panel's box, is kept in the Ask box and said to be", async () => {
    const { page, errors } = await session().open("slowWeb=30000");
    await listen(page);
    await page.selectOption(".vault-research-mode", "always");
    await page.focus(".vault-research-input");
    await page.keyboard.type("What changed in the latest Automerge release?");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".vault-research-send.is-running");
    await page.keyboard.type("A draft of my own");

    await wb(page, (w) => w.runCommand("ask-question"));
    await page.waitForSelector(".vault-research-ask-input");
    await page.keyboard.type("What is local-first software?");
    await page.keyboard.press("Enter");
    await page.waitForFunction((words) => (window as unknown as { said: string[] }).said.includes(words), KEPT_IN_ASK_BOX);
    expect(await page.inputValue(".vault-research-input")).toBe("A draft of my own");
    expect(await page.locator(".vault-research-turn").count()).toBe(1);

    await page.keyboard.press("Escape");
    await page.waitForSelector(".vault-research-turn.is-cancelled");
    await wb(page, (w) => w.runCommand("ask-question"));
    await page.waitForSelector(".vault-research-ask-input");
    expect(await page.inputValue(".vault-research-ask-input")).toBe("What is local-first software?");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".vault-research-turn:nth-child(2)");
    await finished(page);
    expect(await page.locator(".vault-research-question").allTextContents()).toEqual(["What changed in the latest Automerge release?", "What is local-first software?"]);
    expect(await page.inputValue(".vault-research-input")).toBe("A draft of my own");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("Copy answer by keys is said in the live region, once, and the status line keeps how the run ended", async () => {
    const { page, errors } = await session().open("model=fake");
    await listen(page);
    await page.focus(".vault-research-input");
    await page.keyboard.type("What is local-first software?");
    await page.keyboard.press("Enter");
    await finished(page);
    await lastTurn(page).getByRole("button", { name: "Copy answer" }).focus();
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => (window as unknown as { said: string[] }).said.includes("Answer copied."));
    const run = await said(page);
    expect(run.filter((s) => s === "Answer copied.")).toHaveLength(1);
    expect(run.at(-2)).toMatch(/^Finished in [\d.]+ s\./);
    expect(await page.locator(".vault-research-run-text").textContent()).toMatch(/^Finished in/);
    expect(errors).toEqual([]);
    await page.close();
  });
});
