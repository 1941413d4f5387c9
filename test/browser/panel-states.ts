// Every state of the panel, as a user meets it at a 300 px sidebar and a 390 px phone, in light
// and dark: what it says (the truth about the state), how it reads (calm), and that axe-core
// finds nothing wrong. Each state is screenshot four times and compared with its reference.
// One page is driven through the states (New chat between them); only the model changes pages.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ask, configure, differing, finished, lastTurn, lowestContrast, newChat, setLayout, setTheme, shootState } from "./panel-driver";
import type { ScreenshotOutcome } from "./screenshots";
import type { BrowserSession, WorkbenchPage } from "./workbench-server";

const VAULT_QUESTION = "How do CRDTs merge edits without a server?";
const FRESH_QUESTION = "What changed in the latest Automerge release?";
const LIMITED_QUESTION = "What changed in the latest Yjs release?";
/** Nothing in the sample vault is about this. */
const UNKNOWN_QUESTION = "How do I descale an espresso machine with citric acid?";

type Handle = {
  workbench: {
    record: { settingsOpened: number; clipboard: string[] };
    app: { vault: { getMarkdownFiles(): { path: string }[] } };
  };
};
const inPage = <T>(page: Page, fn: (w: Handle["workbench"]) => T) => page.evaluate<T>(`(${fn.toString()})(window.workbench)`);

export function panelStatesSuite(session: () => BrowserSession, report: (line: string) => void): void {
  describe("every state of the panel, at 300 px and 390 px, light and dark", () => {
    let plain: WorkbenchPage;
    const shots: ScreenshotOutcome[] = [];
    const violations: string[] = [];
    async function shoot(name: string, before?: (page: Page) => Promise<void>): Promise<void> {
      const outcome = await shootState(session(), plain.page, name, before ? { before } : {});
      shots.push(...outcome.shots);
      violations.push(...outcome.violations.map((v) => `${name} ${v}`));
      expect(outcome.violations).toEqual([]);
      expect(differing(outcome.shots)).toEqual([]);
    }
    const page = () => plain.page;
    const scrollTurnIntoView = async (p: Page) => void (await lastTurn(p).evaluate((t) => t.scrollIntoView({ block: "start" })));

    it("a vault answer: the timeline folds to one line, actions on one row, reasons in words", async () => {
      plain = await session().open("layout=sidebar", { width: 1000, height: 760 });
      await ask(page(), VAULT_QUESTION);
      await finished(page());
      const turn = lastTurn(page());
      expect(await turn.locator("h3.vault-research-question").textContent()).toBe(VAULT_QUESTION);
      const timeline = turn.locator(".vault-research-timeline");
      expect(await timeline.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
      expect(await timeline.locator("summary").textContent()).toMatch(/^\d+ steps · \d+(\.\d)? s$/);
      const stages = await timeline.locator(".vault-research-stage").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-stage")));
      expect(new Set(stages).size).toBe(stages.length);
      // Stage status is in words, for those who cannot see the icon.
      expect(await timeline.locator(".vault-research-stage").first().textContent()).toMatch(/done/);

      const actions = turn.locator(".vault-research-turn-action");
      expect(await actions.evaluateAll((b) => b.map((x) => x.getAttribute("aria-label")))).toEqual(["Copy answer", "Insert at cursor", "Open trace note"]);
      expect(new Set(await actions.evaluateAll((b) => b.map((x) => (x as HTMLElement).offsetTop))).size).toBe(1);
      expect(await actions.locator("svg").count()).toBe(3);

      const chip = turn.locator(".vault-research-chip-vault").first();
      expect(await chip.getAttribute("aria-label")).toMatch(new RegExp(`^${(await chip.textContent())!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} — note in your vault: `));
      const why = turn.locator(".vault-research-why").first();
      await why.locator("summary").first().click();
      expect(await why.locator(".vault-research-why-words").textContent()).toMatch(/^(Matches|Words of the question)/);
      expect(await why.locator(".vault-research-why-words").textContent()).not.toMatch(/-?\d+\.\d\d/);
      expect(await why.locator(".vault-research-scores ul").isVisible()).toBe(false);
      await why.locator("summary").first().click();

      // Copying shows the app's notice.
      await actions.first().click();
      await page().locator(".notice", { hasText: "Answer copied." }).waitFor({ state: "visible" });
      await page().locator(".notice").evaluateAll((n) => n.forEach((x) => x.remove()));

      await shoot("vault-answer", scrollTurnIntoView);
      for (const theme of ["light", "dark"] as const) {
        await setTheme(page(), theme);
        const lowest = await lowestContrast(page(), ".vault-research-panel");
        report(`lowest text contrast in the panel, ${theme}: ${lowest.ratio}:1 (${lowest.where}: "${lowest.text}")`);
        expect(lowest.ratio).toBeGreaterThanOrEqual(4.5);
      }
      await setTheme(page(), "light");
      await timeline.locator("summary").click();
      expect(await timeline.locator(".vault-research-stage").first().isVisible()).toBe(true);
    });

    it("no evidence: says so once, writes no brief, and offers the web for this question only", async () => {
      await newChat(page());
      await ask(page(), UNKNOWN_QUESTION);
      await finished(page());
      const turn = lastTurn(page());
      expect(await turn.locator(".vault-research-stop").textContent()).toBe("Your vault has no notes on this.");
      expect(await turn.locator(".vault-research-answer").count()).toBe(0);
      expect(await turn.getByRole("button", { name: "Copy answer" }).count()).toBe(0);
      const searchWeb = turn.getByRole("button", { name: "Search the web for this question" });
      expect(await searchWeb.count()).toBe(1);
      await shoot("no-evidence", scrollTurnIntoView);
      await searchWeb.click();
      await finished(page());
      expect(await lastTurn(page()).locator(".vault-research-turn-meta").textContent()).toBe("External web: Always · Brave · Any");
      expect(await page().inputValue(".vault-research-mode")).toBe("never");
    });

    it("running: a moving indicator (still under reduced motion), the time so far, a labelled Stop; Enter says a run is going", async () => {
      await newChat(page());
      await configure(page(), { slowWebMs: 30_000 });
      await ask(page(), FRESH_QUESTION, "always");
      await page().waitForSelector(".vault-research-stage.is-started[data-stage='external_retrieval']", { timeout: 15_000 });
      const indicator = page().locator(".vault-research-run-indicator");
      expect(await indicator.isVisible()).toBe(true);
      expect(await indicator.evaluate((el) => getComputedStyle(el).animationName)).toBe("vault-research-spin");
      await page().emulateMedia({ reducedMotion: "reduce" });
      expect(await indicator.evaluate((el) => getComputedStyle(el).animationName)).toBe("vault-research-breathe");
      await page().emulateMedia({ reducedMotion: null });
      await page().waitForFunction(() => /^\d+ s$/.test(document.querySelector(".vault-research-run-elapsed")?.textContent ?? ""));
      expect(await page().locator(".vault-research-run-text").textContent()).toBe("Searching the web with Brave…");
      const send = page().locator(".vault-research-send");
      expect(await send.textContent()).toBe("Stop");
      expect(await send.getAttribute("aria-label")).toBe("Stop (Esc)");
      await page().fill(".vault-research-input", "Another question");
      await page().press(".vault-research-input", "Enter");
      expect(await page().locator(".vault-research-run-text").textContent()).toMatch(/^A run is in progress/);
      expect(await page().inputValue(".vault-research-input")).toBe("Another question");
      await page().fill(".vault-research-input", "");
      // Only the status line's announcer is live; the chat, the timeline and the ticking time are not.
      const live = ".vault-research-panel [aria-live], .vault-research-panel [role='status'], .vault-research-panel [role='alert'], .vault-research-panel [role='log']";
      expect(await page().locator(live).evaluateAll((els: Element[]) => els.map((e) => e.className))).toEqual(["vault-research-run-announcer vault-research-visually-hidden"]);
      await shoot("running");
    });

    it("cancelled: one calm line, no network hint", async () => {
      await page().keyboard.press("Escape");
      await page().waitForSelector(".vault-research-turn.is-cancelled");
      await configure(page(), { slowWebMs: 0 });
      // The run's own result arrives after the cancel; it must not add alarms.
      await page().waitForFunction(() => document.querySelector(".vault-research-turn:last-child .vault-research-stop")?.textContent?.startsWith("Cancelled. "));
      const turn = lastTurn(page());
      expect(await turn.locator(".vault-research-problem").count()).toBe(0);
      expect(await turn.locator(".vault-research-stop").allTextContents()).toEqual(["Cancelled. What was found before stopping is below."]);
      expect(await turn.textContent()).not.toMatch(/internet|network/i);
      expect(await page().locator(".vault-research-run-text").textContent()).toBe("Cancelled.");
      expect(await turn.locator(".vault-research-stage.is-started").count()).toBe(0);
      // The run wrote no trace note, being stopped; the user may keep its trace all the same.
      const save = turn.getByRole("button", { name: "Save trace note" });
      expect(await save.count()).toBe(1);
      await shoot("cancelled", scrollTurnIntoView);
      const traces = () =>
        page().evaluate(async () => {
          const w = (window as unknown as { workbench: { app: { vault: { getMarkdownFiles(): { path: string }[]; adapter: { read(p: string): Promise<string> } } } } }).workbench;
          const files = w.app.vault.getMarkdownFiles().filter((f) => f.path.startsWith("Research/Traces/"));
          return Promise.all(files.map(async (f) => ({ path: f.path, text: await w.app.vault.adapter.read(f.path) })));
        });
      const before = (await traces()).map((t) => t.path);
      await save.click();
      const open = turn.getByRole("button", { name: "Open trace note" });
      await open.waitFor({ state: "visible" });
      expect(await open.evaluate((b) => b === document.activeElement)).toBe(true);
      const saved = (await traces()).filter((t) => !before.includes(t.path));
      expect(saved.map((t) => t.text.match(/^stop_reason: (\w+)$/m)?.[1])).toEqual(["cancelled"]);
      expect(saved[0].text).toContain("> [!warning] Stopped before it finished\n> The run was cancelled during the external retrieval stage.");
      await page().locator(".notice").evaluateAll((n) => n.forEach((x) => x.remove()));
    });

    it("a missing key: says which, offers Open settings, and never a command-line hint", async () => {
      await newChat(page());
      await configure(page(), { web: "missing-key" });
      await ask(page(), FRESH_QUESTION, "always");
      await finished(page());
      const turn = lastTurn(page());
      const problem = turn.locator(".vault-research-problem");
      expect(await problem.allTextContents()).toEqual([expect.stringMatching(/^No Brave API key is set\./)]);
      expect(await page().locator(".vault-research-panel").textContent()).not.toMatch(/CLI|BRAVE_SEARCH_API_KEY|--config/);
      const webStage = turn.locator(".vault-research-stage[data-stage='external_retrieval']");
      expect(await webStage.getAttribute("class")).toContain("is-failed");
      expect(await webStage.locator(".vault-research-stage-status").textContent()).toBe("failed");
      expect(await turn.locator(".vault-research-timeline-summary").textContent()).toMatch(/web: Brave failed$/);
      await shoot("missing-key", scrollTurnIntoView);
      await problem.getByRole("button", { name: "Open settings" }).click();
      await page().waitForSelector(".workbench-settings");
      await page().keyboard.press("Escape");
      expect(await page().locator(".workbench-settings").count()).toBe(0);
      await configure(page(), { web: "ok" });
    });

    it("a page that could not be fetched: says only the excerpt was saved and why, and fetches again in its place", async () => {
      await newChat(page());
      await ask(page(), FRESH_QUESTION, "always");
      await finished(page());
      // The Hacker News result has no recorded page: the workbench refuses the request.
      const card = lastTurn(page()).locator(".vault-research-card.is-outside", { has: page().locator(".vault-research-card-domain", { hasText: "news.ycombinator.com" }) });
      await card.getByRole("button", { name: "Add to vault" }).click();
      const status = card.locator(".vault-research-promote-status");
      await status.locator(".vault-research-promote-link").waitFor({ timeout: 15_000 });
      expect(await status.textContent()).toMatch(/^Saved as \[\[.+\]\] with the provider's excerpt only: the page could not be reached\.$/);
      const again = card.getByRole("button", { name: /^Fetch the page again/ });
      expect(await again.count()).toBe(1);
      await shoot("promote-excerpt-only", async (p) => void (await card.evaluate((c) => c.scrollIntoView({ block: "center" }))));
      const sources = () => inPage(page(), (w) => w.app.vault.getMarkdownFiles().filter((f) => f.path.startsWith("Research/Sources/")).length);
      expect(await sources()).toBe(1);
      await again.click();
      await page().waitForFunction(() => document.querySelectorAll(".vault-research-promote-status .vault-research-promote-link").length > 0 && !document.querySelector(".vault-research-card.is-promoting"));
      expect(await status.textContent()).toMatch(/with the provider's excerpt only/);
      // Replaced, not added beside it.
      expect(await sources()).toBe(1);
    });

    it("a rate limit: offers Retry, suggests no other source when there is none, and Retry asks again", async () => {
      await newChat(page());
      await configure(page(), { web: "rate-limited" });
      // Not a question asked before: the session cache would answer it without asking Brave.
      await ask(page(), LIMITED_QUESTION, "always");
      await finished(page());
      const turn = lastTurn(page());
      const problem = turn.locator(".vault-research-problem[data-kind='rate_limited']");
      expect(await problem.count()).toBe(1);
      expect(await problem.textContent()).not.toMatch(/another/);
      await shoot("rate-limited", scrollTurnIntoView);
      await configure(page(), { web: "ok" });
      // Retry asks the same question again, as a new turn (Brave's wait is still running, so it is not awaited).
      await problem.getByRole("button", { name: "Retry" }).click();
      await page().waitForSelector(".vault-research-turn:nth-child(2).is-running");
      expect(await lastTurn(page()).locator(".vault-research-question").textContent()).toBe(LIMITED_QUESTION);
      await newChat(page());
    });

    it("an answer by a model: tables and code as reading view draws them, ephemeral explained once", async () => {
      const model = await session().open("layout=sidebar&model=fake", { width: 1000, height: 760 });
      await ask(model.page, FRESH_QUESTION, "always");
      await finished(model.page);
      const turn = lastTurn(model.page);
      expect(await turn.locator(".vault-research-answer-body table th").allTextContents()).toEqual(["Version", "Memory"]);
      expect(await turn.locator(".vault-research-answer-body pre code").textContent()).toBe("const doc = Automerge.from({ notes: [] })");
      expect(await turn.locator(".vault-research-answer-body pre .copy-code-button").count()).toBe(1);
      expect(await turn.locator(".vault-research-legend").count()).toBe(1);
      const chip = turn.locator(".vault-research-chip-outside").first();
      expect(await chip.getAttribute("aria-label")).toMatch(/^Web .+ — Outside vault · Brave · ephemeral \(https:/);
      const outcome = await shootState(session(), model.page, "model-answer", { before: async (p) => void (await lastTurn(p).locator(".vault-research-answer").evaluate((a) => a.scrollIntoView({ block: "start" }))) });
      shots.push(...outcome.shots);
      expect(outcome.violations).toEqual([]);
      expect(differing(outcome.shots)).toEqual([]);
      await ask(model.page, FRESH_QUESTION, "always");
      await finished(model.page);
      expect(await model.page.locator(".vault-research-legend").count()).toBe(1);
      expect(model.errors).toEqual([]);
      await model.page.close();
    });

    it("leaves no uncaught error, and reports what it measured", async () => {
      expect(plain.errors).toEqual([]);
      report(`state screenshots: ${shots.length} (${shots.filter((s) => s.status === "written").length} written as new references), axe violations: ${violations.length}`);
      await setLayout(page(), "sidebar");
      await plain.page.close();
    });
  });
}
