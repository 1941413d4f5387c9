// The search dial in Chromium, over the real dial engine on the sample vault (the dial bench,
// test/browser/dial-bench/): the dial in the search modal and the research panel, the modal with
// scores shown, a slow level's label, a failed rerank, the zero-results state and the comparison
// view — axe-core finds nothing in light or dark, the keyboard alone moves the dial, and each
// state's screenshot is compared with its reference (UPDATE_SCREENSHOTS=1 rewrites them).
// Runs on its own (npx vitest run test/browser/dial.test.ts): one browser, one static server.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inBench, inBothThemes, startBench, type Bench, type BenchBrowser } from "./dial-bench/bench-browser";
import { differing } from "./panel-driver";
import { closeComparer, type ScreenshotOutcome } from "./screenshots";
import { CHROMIUM, chromiumAvailable } from "./workbench-server";


if (!chromiumAvailable) console.warn(`Dial browser tests skipped: no Chromium at ${CHROMIUM}.`);

describe.skipIf(!chromiumAvailable)("the search dial in Chromium", () => {
  let bench: BenchBrowser;
  const violations: string[] = [];
  const shots: ScreenshotOutcome[] = [];

  beforeAll(async () => {
    bench = await startBench();
  });

  afterAll(async () => {
    await closeComparer();
    await bench?.close();
    console.debug(`dial: axe violations ${violations.length}; screenshots ${shots.length} (${shots.filter((s) => s.status === "written").length} written, ${shots.filter((s) => s.status === "different").length} different)`);
  });

  const open = (query = "", viewport = { width: 1000, height: 700 }) => bench.open(query, viewport);

  /** axe in both themes, and a screenshot of `selector` in each, compared with its reference. */
  async function check(page: Page, name: string, selector: string, shotOf: string = selector): Promise<void> {
    const { found, taken } = await inBothThemes(bench.context, page, `dial-${name}`, selector, shotOf);
    violations.push(...found);
    shots.push(...taken);
    expect(found).toEqual([]);
    expect(differing(taken)).toEqual([]);
  }

  /** The query as one input event (typed key by key, a slow machine searches its prefixes too). */
  async function search(page: Page, query: string): Promise<void> {
    await inBench(page, (b) => b.openSearch());
    await page.keyboard.insertText(query);
  }

  it("the dial in the search modal: one radio group, the keyboard moves it, the search follows and it is remembered", async () => {
    const { page, errors } = await open();
    await search(page, "crdt merge");
    await page.waitForSelector(".vault-research-search-result");
    const names = await page.locator(".vault-research-dial-position").evaluateAll((labels) => labels.map((l) => l.querySelector(".vault-research-dial-name")!.textContent));
    expect(names).toEqual(["Lexical", "Hybrid", "Multi-field", "Rerank"]);
    expect(await page.locator(".modal-container input[type='checkbox']").count()).toBe(1); // Show scores, not the dial

    // Tab from the query to the dial's checked position, then the arrows move it.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe("1");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).value)).toBe("3");
    await page.waitForFunction(() => (window as unknown as Bench).bench.host.requests.some((r) => r.level === 3));
    expect(await inBench(page, (b) => b.host.savedLevels)).toEqual([["search-modal", 2], ["search-modal", 3]]);
    await page.waitForSelector(".vault-research-search-result");
    await check(page, "modal-keyboard", ".modal-container", ".modal");

    // Back to the query; ↓ and Enter open a result and record the click-through.
    await page.focus(".prompt-input");
    await page.keyboard.press("ArrowDown");
    const second = await page.locator(".suggestion-item.is-selected .vault-research-search-result-path").textContent();
    await page.keyboard.press("Enter");
    expect(await page.locator(".modal-container").count()).toBe(0);
    expect((await inBench(page, (b) => b.openedLinks())).at(-1)).toContain(second!);
    await page.waitForFunction(() => (window as unknown as Bench).bench.host.clicks.length === 1);
    expect(await inBench(page, (b) => b.host.clicks.map((c) => [c.key, c.rank]))).toEqual([[second, 2]]);

    // Opened again, the modal's dial is where it was left.
    await inBench(page, (b) => b.openSearch());
    expect(await page.locator(".vault-research-dial-input:checked").getAttribute("value")).toBe("3");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("with scores shown: each lane's rank and score, the rerank's move and the section that matched", async () => {
    const { page, errors } = await open();
    await inBench(page, (b) => b.openSearch());
    await page.click(".vault-research-dial-position[data-level='4']");
    await page.click(".vault-research-search-scores-toggle");
    await page.focus(".prompt-input");
    await page.keyboard.type("crdt merge");
    await page.waitForSelector(".vault-research-search-result");
    await page.waitForFunction(() => document.querySelector(".vault-research-search-status")?.getAttribute("class")?.includes("is-busy") === false);
    const first = page.locator(".suggestion-item").first();
    expect(await first.locator(".vault-research-search-scores").isVisible()).toBe(true);
    const lines = await page.locator(".vault-research-search-scores li").allTextContents();
    expect(lines.some((l) => /^Words: \d+(st|nd|rd|th) · score /.test(l))).toBe(true);
    expect(lines.some((l) => /^Closest part by meaning: /.test(l))).toBe(true);
    expect(lines.some((l) => /^Rerank by bench-model: (moved (up|down) \d+|kept)/.test(l))).toBe(true);
    expect(await page.locator(".vault-research-search-result-heading.is-by-meaning").count()).toBeGreaterThan(0);
    expect(await inBench(page, (b) => b.host.savedScores)).toEqual([true]);
    await check(page, "modal-scores", ".modal-container", ".modal");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a slow level shows its label while it runs; a failed rerank says level 3's order stands", async () => {
    const slow = await open("holdRerank=1");
    await inBench(slow.page, (b) => b.openSearch());
    await slow.page.click(".vault-research-dial-position[data-level='4']");
    await slow.page.focus(".prompt-input");
    await slow.page.keyboard.type("local-first");
    await slow.page.waitForSelector(".vault-research-search-status.is-busy");
    expect(await slow.page.locator(".vault-research-search-status").textContent()).toBe("Rerank: embedding the query, then reranking…");
    expect(await slow.page.locator(".prompt-results").getAttribute("aria-busy")).toBe("true");
    await check(slow.page, "modal-running", ".modal-container", ".modal");
    await inBench(slow.page, (b) => b.releaseRerank());
    await slow.page.waitForFunction(() => document.querySelector(".vault-research-search-status.is-busy") === null && document.querySelector(".vault-research-search-result") !== null, null, { timeout: 10_000 });
    await slow.page.close();

    const failing = await open("rerank=fail");
    await inBench(failing.page, (b) => b.openSearch());
    await failing.page.click(".vault-research-dial-position[data-level='4']");
    await failing.page.focus(".prompt-input");
    await failing.page.keyboard.type("local-first");
    await failing.page.waitForSelector(".vault-research-search-result");
    await failing.page.waitForFunction(() => /order stands/.test(document.querySelector(".vault-research-search-status")?.textContent ?? ""));
    expect(await failing.page.locator(".vault-research-search-status").textContent()).toBe(
      "Ran at Multi-field instead of Rerank. bench-model could not reorder the results: the model server answered 500. Level 3's order stands.",
    );
    await check(failing.page, "modal-rerank-failed", ".modal-container", ".modal");
    expect([...slow.errors, ...failing.errors]).toEqual([]);
    await failing.page.close();
  });

  it("zero results: one click shows the three closest notes with their low scores, or it says what finding them needs", async () => {
    const { page, errors } = await open();
    await search(page, "descale espresso");
    await page.waitForSelector(".vault-research-search-offer-button");
    expect(await page.locator(".suggestion-empty").textContent()).toBe("No note contains these words.");
    // The word search, then the closest by spelling (level 1, none here): no model was asked. A slow machine may
    // search a prefix while the words are typed; only the whole query's requests are asserted.
    const asked = await inBench(page, (b) => b.host.requests.map((r) => ({ query: r.query, level: r.level, loose: r.loose ?? false })));
    expect(asked.every((r) => r.level === 1)).toBe(true);
    expect(asked.filter((r) => r.query === "descale espresso").map((r) => [r.level, r.loose])).toEqual([[1, false], [1, true]]);
    await check(page, "zero-results-offer", ".modal-container", ".modal");
    await page.click(".vault-research-search-offer-button");
    await page.waitForSelector(".vault-research-search-result-closeness");
    expect(await page.evaluate(() => document.activeElement?.className)).toContain("prompt-input");
    expect(await page.locator(".suggestion-item").count()).toBe(3);
    const closeness = await page.locator(".vault-research-search-result-closeness").allTextContents();
    expect(closeness.every((c) => /^Not a match · similarity 0\.\d\d$/.test(c))).toBe(true);
    expect(await page.locator(".vault-research-search-status").textContent()).toMatch(/^No note contains these words\. The 3 closest by meaning/);
    await check(page, "zero-results", ".modal-container", ".modal");
    await page.close();

    const bare = await open("ready=1");
    await search(bare.page, "descale espresso");
    await bare.page.waitForFunction(() => /^No note contains/.test(document.querySelector(".suggestion-empty")?.textContent ?? ""));
    expect(await bare.page.locator(".suggestion-empty").textContent()).toBe(
      "No note contains these words. Finding the closest notes by meaning needs Hybrid, which is not ready (no embedding model is set in settings).",
    );
    expect(await bare.page.locator(".vault-research-dial-position.is-not-ready").count()).toBe(3);
    await check(bare.page, "zero-results-no-vectors", ".modal-container", ".modal");
    expect([...errors, ...bare.errors]).toEqual([]);
    await bare.page.close();
  });

  it("the comparison view: four levels side by side, moves marked in words and badges", async () => {
    const { page, errors } = await open("", { width: 1000, height: 800 });
    await inBench(page, (b) => b.openComparison("crdt merge"));
    await page.waitForSelector(".vault-research-comparison-table");
    const heads = await page.locator(".vault-research-comparison-level").allTextContents();
    expect(heads).toEqual(["Lexical", "Hybrid", "Multi-field", "Rerank"]);
    const moved = await page.locator(".vault-research-comparison-cell.is-up, .vault-research-comparison-cell.is-down, .vault-research-comparison-cell.is-new").count();
    expect(moved).toBeGreaterThan(0);
    // The query box runs it again.
    await page.fill(".vault-research-comparison-input", "offline sync");
    await page.press(".vault-research-comparison-input", "Enter");
    await page.waitForFunction(() => document.querySelector(".vault-research-comparison-table caption")?.textContent?.includes("offline sync") === true);
    await check(page, "comparison", ".bench-main", ".bench-main");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the comparison view when the rerank fails: Rerank says it did not run, and shows no ranks as its own", async () => {
    const { page, errors } = await open("rerank=fail", { width: 1000, height: 800 });
    await inBench(page, (b) => b.openComparison("crdt merge"));
    await page.waitForSelector(".vault-research-comparison-table");
    const metas = await page.locator(".vault-research-comparison-level-meta").allTextContents();
    expect(metas[3]).toMatch(/^did not run: Multi-field ran instead · \d+ ms$/);
    const rerankCells = await page.locator(".vault-research-comparison-table tbody td:nth-child(5)").allTextContents();
    expect(rerankCells.length).toBeGreaterThan(0);
    expect(new Set(rerankCells)).toEqual(new Set(["not runRerank did not run"]));
    expect(await page.locator(".vault-research-comparison-status").textContent()).toMatch(/Rerank could not run; why is said below\.$/);
    await check(page, "comparison-rerank-failed", ".bench-main", ".bench-main");
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the research panel's compact dial at 300 px, a level not ready marked and explained", async () => {
    const { page, errors } = await open("ready=3");
    await inBench(page, (b) => b.openPanel());
    await page.waitForSelector(".vault-research-composer .vault-research-dial.is-compact");
    await page.click(".vault-research-composer .vault-research-dial-position[data-level='4']");
    expect(await page.locator(".vault-research-composer .vault-research-dial-reason").textContent()).toBe(
      "Rerank is not ready (no chat model is set in settings), so searches run at Multi-field.",
    );
    expect(await inBench(page, (b) => b.host.savedLevels)).toEqual([["research-panel", 4]]);
    await check(page, "panel", ".vault-research-panel", ".bench-sidebar");
    expect(errors).toEqual([]);
    await page.close();

    // On a phone every position is a 44 px target.
    const phone = await open("ready=3&layout=phone", { width: 390, height: 760 });
    await inBench(phone.page, (b) => b.openPanel());
    const heights = await phone.page.locator(".vault-research-dial-position").evaluateAll((labels) => labels.map((l) => l.getBoundingClientRect().height));
    expect(heights.every((h) => h >= 44)).toBe(true);
    await check(phone.page, "panel-390", ".vault-research-panel", ".bench-sidebar");
    expect(phone.errors).toEqual([]);
    await phone.page.close();
  });
});
