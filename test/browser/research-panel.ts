// The research panel in a real browser: the workbench (real plugin, stand-in `obsidian`, sample
// vault, recorded Brave answers) driven by playwright-core in Debian's Chromium. Screenshots go
// to test-artifacts/ for a person to look at. Run by browser.test.ts, in its one browser.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { artifacts, type BrowserSession } from "./workbench-server";

const OUTSIDE_LABEL = "Outside vault · Brave · ephemeral";

export function researchPanelSuite(session: () => BrowserSession): void {
describe("research panel in Chromium", () => {
  /** Opens the workbench; every request the page makes is kept so tests can see what left. */
  async function open(query = "", viewport = { width: 1100, height: 800 }): Promise<{ page: Page; requests: string[] }> {
    const { page, requests, errors } = await session().open(query, viewport);
    expect(errors).toEqual([]);
    return { page, requests };
  }

  async function ask(page: Page, question: string, mode: "never" | "on-weak" | "always" = "never"): Promise<void> {
    if (mode !== "never") await page.selectOption(".vault-research-mode", mode);
    await page.fill(".vault-research-input", question);
    await page.press(".vault-research-input", "Enter");
  }

  const lastTurn = (page: Page) => page.locator(".vault-research-turn").last();
  const finished = (page: Page) => page.waitForSelector(".vault-research-turn:last-child:not(.is-running)", { timeout: 30_000 });
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(artifacts, `${name}.png`) });

  /** Horizontal overflow anywhere in the panel (or the page), as [what, by how many px]. */
  async function overflow(page: Page): Promise<string[]> {
    return page.evaluate(() => {
      const found: string[] = [];
      const doc = document.documentElement;
      if (doc.scrollWidth > window.innerWidth + 1) found.push(`page ${doc.scrollWidth - window.innerWidth}px`);
      const panel = document.querySelector(".vault-research-panel");
      if (!panel) return ["no panel"];
      const right = panel.getBoundingClientRect().right;
      for (const el of panel.querySelectorAll<HTMLElement>("*")) {
        if (el.closest("pre, details:not([open]) > :not(summary)")) continue;
        const box = el.getBoundingClientRect();
        if (box.width > 0 && box.right > right + 1) found.push(`${el.className || el.tagName} ${Math.round(box.right - right)}px`);
        if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "hidden" && el.matches(".vault-research-turns")) found.push("turns scroll sideways");
      }
      return found;
    });
  }

  it("answers a vault question from the vault only, with chips that open the cited note at its heading", async () => {
    const { page, requests } = await open();
    await ask(page, "How do CRDTs merge edits without a server?");
    await finished(page);
    const turn = lastTurn(page);
    await expect(turn.locator(".vault-research-turn-meta").textContent()).resolves.toBe("Vault only");
    const cards = turn.locator(".vault-research-card.is-vault");
    const counter = await turn.locator(".vault-research-counter").allTextContents();
    expect(counter).toEqual([`Vault evidence: ${await cards.count()} ${(await cards.count()) === 1 ? "row" : "rows"}`]);
    expect(await cards.count()).toBeGreaterThan(0);
    expect(await turn.locator(".vault-research-evidence-group.is-outside").count()).toBe(0);
    expect(await turn.locator(".vault-research-stage-title").allTextContents()).toContain("Searching vault");

    const chip = turn.locator(".vault-research-chip-vault").first();
    const key = await chip.getAttribute("data-source-key");
    const card = turn.locator(`.vault-research-card[data-source-key="${key}"]`);
    const notePath = await card.locator(".vault-research-card-path").textContent();
    const heading = (await card.locator(".vault-research-card-heading").count()) > 0 ? await card.locator(".vault-research-card-heading").textContent() : null;
    await chip.click();
    const opened = await page.evaluate(() => (window as unknown as { workbench: { openedLinks(): string[] } }).workbench.openedLinks());
    expect(opened.at(-1)).toBe(heading ? `${notePath}#${heading}` : notePath);

    expect(requests.filter((u) => !u.startsWith(session().url))).toEqual([]);
    await shot(page, "vault-question-light");
    await page.close();
  });

  it("keeps outside-vault evidence apart, labelled and counted, and its chips open the page", async () => {
    const { page, requests } = await open("model=fake");
    await ask(page, "What changed in the latest Automerge release?", "always");
    await finished(page);
    const turn = lastTurn(page);
    const outsideCards = turn.locator(".vault-research-card.is-outside");
    const n = await outsideCards.count();
    expect(n).toBeGreaterThan(0);
    expect(await turn.locator(".vault-research-counter").allTextContents()).toEqual([
      `Vault evidence: ${await turn.locator(".vault-research-card.is-vault").count()} rows`,
      `Outside vault: ${n} ${n === 1 ? "row" : "rows"} from Brave`,
    ]);
    expect(new Set(await outsideCards.locator(".vault-research-badge").allTextContents())).toEqual(new Set([OUTSIDE_LABEL]));
    expect(await turn.locator(".vault-research-stage-title").allTextContents()).toContain("Searching the web with Brave");

    // The answer: a model stand-in repeated a hostile page's links and image; none is live.
    const answer = turn.locator(".vault-research-answer-body");
    expect(await answer.locator("a, img").count()).toBe(0);
    expect(await answer.locator("strong").textContent()).toBe("bold stays bold");
    expect(await answer.textContent()).toContain("[the changelog](https://evil.example/steal)");
    expect(requests.filter((u) => u.includes("evil.example"))).toEqual([]);

    const chip = turn.locator(".vault-research-chip-outside").first();
    const key = await chip.getAttribute("data-source-key");
    await chip.click();
    const urls = await page.evaluate(() => (window as unknown as { workbench: { record: { openedUrls: string[] } } }).workbench.record.openedUrls);
    const cardTitle = turn.locator(`.vault-research-card[data-source-key="${key}"] .vault-research-card-title`);
    await cardTitle.click();
    const urlsAfter = await page.evaluate(() => (window as unknown as { workbench: { record: { openedUrls: string[] } } }).workbench.record.openedUrls);
    expect(urls).toHaveLength(1);
    expect(urls[0]).toMatch(/^https:\/\//);
    expect(urlsAfter).toEqual([urls[0], urls[0]]);

    // Copy and insert give markdown with links and the label, no keys.
    await turn.getByRole("button", { name: "Copy answer" }).click();
    await turn.getByRole("button", { name: "Insert at cursor" }).click();
    const { clipboard, draft } = await page.evaluate(() => {
      const wb = (window as unknown as { workbench: { record: { clipboard: string[] }; draft(): string } }).workbench;
      return { clipboard: wb.record.clipboard, draft: wb.draft() };
    });
    expect(clipboard[0]).toContain(OUTSIDE_LABEL);
    expect(clipboard[0]).not.toMatch(/\[(src|ext):/);
    expect(draft).toContain(clipboard[0]);
    await turn.locator(".vault-research-answer").scrollIntoViewIfNeeded();
    await shot(page, "outside-question-light");

    await page.evaluate(() => (window as unknown as { workbench: { setTheme(t: string): void } }).workbench.setTheme("dark"));
    const dark = await page.evaluate(() => getComputedStyle(document.querySelector(".vault-research-answer")!).backgroundColor);
    expect(dark).toBe("rgb(30, 30, 30)");
    await shot(page, "outside-question-dark");
    await page.close();
  });

  it("sends on Enter, keeps a new line on Shift+Enter, and asks from the command palette modal", async () => {
    const { page } = await open();
    await page.fill(".vault-research-input", "first line");
    await page.press(".vault-research-input", "Shift+Enter");
    await page.keyboard.type("second line");
    expect(await page.inputValue(".vault-research-input")).toBe("first line\nsecond line");
    expect(await page.locator(".vault-research-turn").count()).toBe(0);
    await page.press(".vault-research-input", "Enter");
    await finished(page);
    expect(await page.locator(".vault-research-question").allTextContents()).toEqual(["first line\nsecond line"]);
    expect(await page.inputValue(".vault-research-input")).toBe("");

    await page.click("text=Ask a research question");
    await page.waitForSelector(".vault-research-ask-input");
    await page.keyboard.type("What is local-first software?");
    await page.keyboard.press("Enter");
    await page.waitForSelector(".vault-research-turn:nth-child(2)");
    await finished(page);
    expect(await page.locator(".vault-research-question").allTextContents()).toEqual(["first line\nsecond line", "What is local-first software?"]);
    expect(await page.locator(".modal-container").count()).toBe(0);
    await page.close();
  });

  it("cancels a slow web search with Escape and a slow model with the stop button", async () => {
    const { page } = await open("slowWeb=30000");
    await ask(page, "What changed in the latest Automerge release?", "always");
    await page.waitForSelector(".vault-research-stage.is-started[data-stage='external_retrieval']", { timeout: 15_000 });
    await shot(page, "cancel-running");
    await page.keyboard.press("Escape");
    await page.waitForSelector(".vault-research-turn.is-cancelled");
    expect(await page.locator(".vault-research-stage.is-started").count()).toBe(0);
    expect(await page.getAttribute(".vault-research-send", "aria-label")).toBe("Send (Enter)");
    await shot(page, "cancel-done");
    await page.close();

    const slow = await open("model=slow");
    await ask(slow.page, "How do CRDTs merge edits without a server?");
    await slow.page.waitForSelector(".vault-research-stage.is-started[data-stage='synthesize']", { timeout: 15_000 });
    await slow.page.click(".vault-research-send");
    await slow.page.waitForSelector(".vault-research-turn.is-cancelled");
    // The composer is free again at once.
    await ask(slow.page, "What is local-first software?");
    await slow.page.waitForSelector(".vault-research-turn:nth-child(2)");
    await slow.page.close();
  });

  it("shows a missing key and a rate limit as readable messages, keeping the vault results", async () => {
    const missing = await open("web=missing-key");
    await ask(missing.page, "What changed in the latest Automerge release?", "always");
    await finished(missing.page);
    const problem = lastTurn(missing.page).locator(".vault-research-problem").first();
    expect(await problem.textContent()).toContain("No Brave API key is set");
    expect(await problem.locator(".vault-research-problem-hint").textContent()).toContain("Settings");
    expect((await lastTurn(missing.page).locator(".vault-research-counter").allTextContents())[0]).toMatch(/^Vault evidence: [1-9]\d* rows?$/);
    expect(await lastTurn(missing.page).locator(".vault-research-card.is-vault").count()).toBeGreaterThan(0);
    await shot(missing.page, "error-missing-key");
    await missing.page.close();

    const limited = await open("web=rate-limited");
    await ask(limited.page, "What changed in the latest Automerge release?", "always");
    await finished(limited.page);
    const turn = lastTurn(limited.page);
    const rate = turn.locator(".vault-research-problem[data-kind='rate_limited']");
    expect(await rate.count()).toBeGreaterThan(0);
    expect(await rate.first().locator(".vault-research-problem-hint").textContent()).toContain("Wait a moment");
    // Brave never answered: the counter names no source, and the line under it says the search failed.
    expect(await turn.locator(".vault-research-counter").allTextContents()).toContain("Outside vault: 0 rows");
    expect(await turn.locator(".vault-research-outside-outcome").allTextContents()).toEqual(["Web search failed: Brave was rate limited."]);
    expect(await turn.locator(".vault-research-card.is-vault").count()).toBeGreaterThan(0);
    await turn.locator(".vault-research-evidence-group.is-outside").scrollIntoViewIfNeeded();
    await shot(limited.page, "error-rate-limited");
    await limited.page.close();
  });

  for (const width of [360, 420]) {
    it(`has no horizontal overflow at ${width} px, in light and dark`, async () => {
      const { page } = await open("model=fake", { width, height: 780 });
      await ask(page, "What changed in the latest Automerge release?", "always");
      await finished(page);
      for (const details of await page.locator(".vault-research-why").all()) await details.evaluate((d) => ((d as HTMLDetailsElement).open = true));
      expect(await overflow(page)).toEqual([]);
      await lastTurn(page).locator(".vault-research-answer").scrollIntoViewIfNeeded();
      await shot(page, `phone-${width}-light`);
      await page.evaluate(() => (window as unknown as { workbench: { setTheme(t: string): void } }).workbench.setTheme("dark"));
      expect(await overflow(page)).toEqual([]);
      await shot(page, `phone-${width}-dark`);

      await page.evaluate(() => (window as unknown as { workbench: { openSettings(): void } }).workbench.openSettings());
      const settingsOverflow = await page.evaluate(() => {
        const modal = document.querySelector(".workbench-settings .modal")!;
        return modal.scrollWidth - modal.clientWidth;
      });
      expect(settingsOverflow).toBeLessThanOrEqual(1);
      await shot(page, `settings-${width}-dark`);
      await page.close();
    });
  }

  it("offers the whole settings list with keys from secret storage and a privacy note", async () => {
    const { page } = await open("model=fake");
    await page.evaluate(() => (window as unknown as { workbench: { openSettings(): void } }).workbench.openSettings());
    const names = await page.locator(".workbench-settings .setting-item-name").allTextContents();
    for (const name of ["What leaves this device", "Allow web search", "Default for new questions", "Brave API key", "Exa API key", "Model", "Test connection", "Trace folder", "Excluded folders"]) {
      expect(names).toContain(name);
    }
    // With no embedding server, its rows are defined but out of sight (and so out of the app's settings search).
    for (const name of ["Embedding model", "Embedding server address", "Send notes to the embedding server"]) {
      const row = page.locator(".workbench-settings .setting-item", { has: page.getByText(name, { exact: true }) });
      expect(await row.count(), name).toBe(1);
      expect(await row.isVisible(), name).toBe(false);
    }
    expect(await page.locator(".workbench-settings .setting-item", { has: page.getByText("Embedding server", { exact: true }) }).isVisible()).toBe(true);
    await page.click(".workbench-settings button:has-text('Test')");
    await page.waitForFunction(() => /Connected to workbench-model/.test(document.querySelector(".vault-research-test-passed")?.textContent ?? ""));
    const stored = await page.evaluate(() => JSON.stringify((window as unknown as { workbench: { plugin: { storedData: unknown } } }).workbench.plugin.storedData));
    expect(stored).not.toContain("workbench-demo-key");
    await shot(page, "settings-light");
    await page.close();
  });
});
}
