// The `Workers` port in Chromium: a Web Worker started as the plugin starts one learns exactly the
// meanings learned in the page's own thread, and a refused job, a broken worker and an abort each
// reject with a reason (the lane then learns in its own thread) and leave no error in the page.
import esbuild from "esbuild";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { workerBundle } from "../../scripts/worker-bundle.mjs";
import { root, type BrowserSession } from "./workbench-server";

async function buildPage(): Promise<void> {
  const out = path.join(root, "dist/workbench");
  await esbuild.build({
    entryPoints: [path.join(root, "test/browser/pages/web-workers-page.ts")],
    outfile: path.join(out, "web-workers.js"),
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2022",
    define: { __VAULT_RESEARCH_WEB_WORKER__: JSON.stringify(await workerBundle("browser", { minify: true })) },
    logLevel: "warning",
  });
  writeFileSync(path.join(out, "web-workers.html"), '<!doctype html><meta charset="utf-8"><title>Web Workers</title><script src="web-workers.js"></script>\n');
}

type Check = { webWorkersCheck: { learnBoth(): Promise<Record<string, unknown>>; failures(): Promise<Record<string, string>> } };

export function webWorkersSuite(session: () => BrowserSession): void {
  describe("the vault's language learned in a Web Worker", () => {
    let page: Page;
    const errors: string[] = [];

    beforeAll(async () => {
      await buildPage();
      page = await session().context.newPage();
      page.on("pageerror", (e) => void errors.push(e.message));
      await page.goto(`${session().url}web-workers.html`);
      await page.waitForFunction(() => (window as unknown as { webWorkersCheck?: { ready: boolean } }).webWorkersCheck?.ready === true);
    });

    it("learns in the worker exactly the meanings learned in the page's thread", async () => {
      const result = await page.evaluate(() => (window as unknown as Check).webWorkersCheck.learnBoth());
      expect(result).toEqual({ workers: true, words: expect.any(Number) as number, sameWords: true, sameVectors: true });
      expect(result.words).toBeGreaterThan(30);
    });

    it("rejects, with a reason, a refused job, a worker that throws or is not JavaScript, and an abort; the page sees no error", async () => {
      const result = await page.evaluate(() => (window as unknown as Check).webWorkersCheck.failures());
      expect(result.refused).toBe("the worker failed: not a request to learn meanings this worker can read");
      expect(result.throws).toMatch(/^the worker failed: .*broken bundle/);
      expect(result.notJavaScript).toMatch(/^the worker failed: /);
      expect(result.aborted).toBe("the work was no longer wanted");
      expect(errors).toEqual([]);
      await page.close();
    });
  });
}
