// The dial bench in Chromium, for the test files that drive it (dial.test.ts, dial-narrow.test.ts):
// built and served once per file, one browser, a page per situation (query parameters as
// bench-page.ts lists them), and what the page puts on `window.bench`.
import type { BrowserContext, Page } from "playwright-core";
import { axeViolations } from "../panel-driver";
import { compareScreenshot, type ScreenshotOutcome } from "../screenshots";
import { launchChromium, serveWorkbench } from "../workbench-server";
import { BENCH_DIR, buildBench } from "./build-bench";

export type Bench = {
  bench: {
    host: { savedLevels: [string, number][]; savedScores: boolean[]; clicks: { key: string; rank: number }[]; requests: { level: number; query: string; loose?: boolean }[] };
    openedLinks(): string[];
    releaseRerank(): void;
    setTheme(theme: "light" | "dark"): void;
    openSearch(): void;
    openPromote(): void;
    openComparison(query: string): Promise<void>;
    openPanel(): Promise<void>;
  };
};

/** Runs `fn` in the page with the bench (`fn` must not close over anything of the test's). */
export const inBench = <T>(page: Page, fn: (b: Bench["bench"]) => T): Promise<T> => page.evaluate<T>(`(${fn.toString()})(window.bench)`);

export interface BenchBrowser {
  context: BrowserContext;
  /** A new page on the bench, ready; `errors` collects what the page threw. */
  open(query?: string, viewport?: { width: number; height: number }): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

export async function startBench(): Promise<BenchBrowser> {
  await buildBench();
  const server = await serveWorkbench();
  const chromium = await launchChromium();
  // Functions handed to page.evaluate are compiled by vitest, which may wrap them in esbuild's
  // name-keeping helper; the page needs it too.
  await chromium.context.addInitScript("globalThis.__name = (fn) => fn;");
  return {
    context: chromium.context,
    async open(query = "", viewport = { width: 1000, height: 700 }) {
      const page = await chromium.context.newPage();
      await page.setViewportSize(viewport);
      const errors: string[] = [];
      page.on("pageerror", (e) => void errors.push(e.message));
      await page.goto(`${server.url}${BENCH_DIR}/index.html?${query}`);
      await page.waitForSelector("body.bench-ready", { timeout: 30_000 });
      return { page, errors };
    },
    async close() {
      await chromium.close();
      await server.close();
    },
  };
}

/** axe on `selector` in the light and the dark theme, and a screenshot of `shotOf` in each compared with its reference (`name-light`, `name-dark`). */
export async function inBothThemes(context: BrowserContext, page: Page, name: string, selector: string, shotOf: string = selector): Promise<{ found: string[]; taken: ScreenshotOutcome[] }> {
  const found: string[] = [];
  const taken: ScreenshotOutcome[] = [];
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((t) => (window as unknown as Bench).bench.setTheme(t), theme);
    for (const v of await axeViolations(page, selector)) found.push(`${name} ${theme}: ${v}`);
    const png = await page.locator(shotOf).screenshot({ animations: "disabled", caret: "hide" });
    taken.push(await compareScreenshot(context, `${name}-${theme}`, png));
  }
  await page.evaluate(() => (window as unknown as Bench).bench.setTheme("light"));
  return { found, taken };
}
