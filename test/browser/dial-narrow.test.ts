// The comparison view, the search modal, the promote picker and the dial where space is short: a
// 300–400 px pane or phone and text at twice its size, with notes and web results named as real
// ones are (one long word, Arabic, Hebrew, a 200-character host; dial-bench/long-titles.ts). Each
// title reads on lines of a readable width, every level's rank is in view, nothing pushes the
// picker sideways and every level keeps its whole name. Layout is measured, not timed; the
// narrowest states are compared with reference screenshots, light and dark, with axe-core.
// Runs on its own (npx vitest run test/browser/dial-narrow.test.ts): one browser, one static server.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inBench, inBothThemes, startBench, type BenchBrowser } from "./dial-bench/bench-browser";
import { LONG_TITLES } from "./dial-bench/long-titles";
import { cutNames, sideways } from "./long-and-narrow";
import { differing } from "./panel-driver";
import { closeComparer } from "./screenshots";
import { CHROMIUM, chromiumAvailable } from "./workbench-server";

if (!chromiumAvailable) console.warn(`Narrow dial browser tests skipped: no Chromium at ${CHROMIUM}.`);

/** Obsidian's interface text at twice its size, as a user who needs it sets it. */
async function largeText(page: Page): Promise<void> {
  await page.addStyleTag({ content: "body { --font-ui-smaller: 24px; --font-ui-small: 26px; --font-ui-medium: 30px; --font-text-size: 32px; }" });
}

/** The comparison view alone in a pane `width` px wide (a narrow side pane, a phone). */
async function comparisonPane(page: Page, width: number): Promise<void> {
  await page.addStyleTag({ content: `.bench-main { inset: 0 auto 0 0; width: ${width}px; } .bench-sidebar { display: none; }` });
}

interface ComparisonLayout {
  /** How many lines each note's title takes. */
  titleLines: Record<string, number>;
  /** Level headings and rank cells that end past the table's box, or whose contents spill out of them. */
  outOfView: string[];
  /** Whether the rows are laid out as table rows (false: stacked). */
  asTable: boolean;
}

async function comparisonLayout(page: Page): Promise<ComparisonLayout> {
  return page.evaluate(() => {
    const box = document.querySelector(".vault-research-comparison-scroll")!.getBoundingClientRect();
    const titles = [...document.querySelectorAll<HTMLElement>(".vault-research-comparison-note")];
    // A title's lines by its height against the shortest title's, which takes one.
    const oneLine = Math.min(...titles.map((t) => t.getBoundingClientRect().height));
    const titleLines = Object.fromEntries(titles.map((t) => [t.textContent ?? "", Math.round(t.getBoundingClientRect().height / oneLine)]));
    const cells = [...document.querySelectorAll<HTMLElement>(".vault-research-comparison-table thead th + th, .vault-research-comparison-cell")];
    const outOfView = cells
      .filter((c) => c.getBoundingClientRect().right > box.right + 1 || c.scrollWidth > c.clientWidth + 1)
      .map((c) => `${c.closest("tr")?.querySelector("th")?.textContent ?? ""} › ${c.textContent}`);
    const asTable = getComputedStyle(document.querySelector(".vault-research-comparison-table tbody tr")!).display === "table-row";
    return { titleLines, outOfView, asTable };
  });
}

describe.skipIf(!chromiumAvailable)("the dial's views in narrow windows, in Chromium", () => {
  let bench: BenchBrowser;

  beforeAll(async () => {
    bench = await startBench();
  });

  afterAll(async () => {
    await closeComparer();
    await bench?.close();
  });

  async function comparisonAt(width: number, options: { large?: boolean } = {}): Promise<{ page: Page; errors: string[]; layout: ComparisonLayout }> {
    const { page, errors } = await bench.open("longTitles=1", { width, height: 900 });
    await comparisonPane(page, width);
    if (options.large) await largeText(page);
    await inBench(page, (b) => b.openComparison("crdt merge"));
    await page.waitForSelector(".vault-research-comparison-table");
    return { page, errors, layout: await comparisonLayout(page) };
  }

  it("the comparison at 300 and 360 px: each long, unbroken or Arabic title reads on a line or two, every level's rank in view", async () => {
    for (const width of [300, 360]) {
      const { page, errors, layout } = await comparisonAt(width);
      for (const title of LONG_TITLES) expect(layout.titleLines[title], `${title} at ${width} px`).toBeLessThanOrEqual(2);
      expect(Math.max(...Object.values(layout.titleLines)), `at ${width} px`).toBeLessThanOrEqual(2);
      expect(layout.outOfView, `at ${width} px`).toEqual([]);
      if (width === 300) {
        const { found, taken } = await inBothThemes(bench.context, page, "dial-narrow-comparison-300", ".vault-research-comparison", ".bench-main");
        expect(found).toEqual([]);
        expect(differing(taken)).toEqual([]);
      }
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it("the comparison with text at twice its size: stacked at 360 and 700 px, each title on a few lines, every rank inside its level's column", async () => {
    for (const width of [360, 700]) {
      const { page, errors, layout } = await comparisonAt(width, { large: true });
      expect(layout.asTable, `at ${width} px`).toBe(false);
      expect(Math.max(...Object.values(layout.titleLines)), `at ${width} px`).toBeLessThanOrEqual(4);
      expect(layout.outOfView, `at ${width} px`).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it("the comparison in a wide pane stays a table, with a Note column", async () => {
    const { page, errors, layout } = await comparisonAt(900);
    expect(layout.asTable).toBe(true);
    expect(await page.locator(".vault-research-comparison-table thead th").first().isVisible()).toBe(true);
    expect(Math.max(...Object.values(layout.titleLines))).toBeLessThanOrEqual(2);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("the promote picker at 300, 360 and 700 px and with large text: a 200-character host and long saved names wrap inside it", async () => {
    for (const [width, large] of [[300, false], [360, false], [700, false], [360, true]] as const) {
      const { page, errors } = await bench.open(width < 400 ? "layout=phone" : "", { width, height: 900 });
      if (large) await largeText(page);
      await inBench(page, (b) => b.openPromote());
      await page.waitForSelector(".vault-research-promote-suggestion");
      expect(await page.locator(".vault-research-promote-suggestion").count()).toBe(LONG_TITLES.length);
      for (const theme of ["light", "dark"] as const) {
        await page.evaluate((t) => (window as unknown as { bench: { setTheme(t: string): void } }).bench.setTheme(t), theme);
        expect(await sideways(page, ".modal"), `${width} px${large ? ", large text" : ""}, ${theme}`).toEqual([]);
      }
      if (width === 300) {
        const { found, taken } = await inBothThemes(bench.context, page, "dial-narrow-promote-300", ".modal-container", ".modal");
        expect(found).toEqual([]);
        expect(differing(taken)).toEqual([]);
      }
      expect(errors).toEqual([]);
      await page.close();
    }
  });

  it("the dial with text at twice its size: every level keeps its whole name, in two rows where four do not fit", async () => {
    // A width where four names at twice the size no longer fit in a row but two do, and a phone.
    for (const width of [460, 300]) {
      const { page, errors } = await bench.open("ready=3&layout=phone&longTitles=1", { width, height: 900 });
      await largeText(page);
      await inBench(page, (b) => b.openSearch());
      await page.keyboard.insertText("crdt merge");
      await page.waitForSelector(".vault-research-search-result");
      expect(await cutNames(page, ".modal"), `search modal at ${width} px`).toEqual([]);
      expect(await sideways(page, ".modal"), `search modal at ${width} px`).toEqual([]);
      if (width === 460) {
        // Four names in a row would each need two lines here: the dial folds into two rows of two instead.
        const rows = await page.locator(".modal .vault-research-dial-position").evaluateAll((ps) => new Set(ps.map((p) => Math.round(p.getBoundingClientRect().top))).size);
        expect(rows).toBe(2);
        const { found, taken } = await inBothThemes(bench.context, page, "dial-narrow-large-text-modal", ".modal-container", ".vault-research-search-toolbar");
        expect(found).toEqual([]);
        expect(differing(taken)).toEqual([]);
      }
      await page.keyboard.press("Escape");
      await inBench(page, (b) => b.openPanel());
      await page.waitForSelector(".vault-research-composer .vault-research-dial");
      expect(await cutNames(page, ".vault-research-composer"), `panel at ${width} px`).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    }
  });
});
