// The `Workers` port in Chromium: a Web Worker started as the plugin starts one learns exactly the
// meanings learned in the page's own thread, and a refused job, a broken worker and an abort each
// reject with a reason (the lane then learns in its own thread) and leave no error in the page.
// Then the real plugin in the workbench, over a vault big enough to learn from: it learns the
// vault's language in a Web Worker, and Search vault finds notes by it.
import esbuild from "esbuild";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { workerBundle } from "../../scripts/worker-bundle.mjs";
import { BY_MEANING } from "../../src/ui/search-modal";
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

type Plugin = { workbench: { plugin: { index: { languageLearnedIn(): string | null; status(): { vaultLanguage?: string } } }; runCommand(id: string): void } };

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

    it("rejects, with a reason, a refused job, a worker that throws, is not JavaScript or goes quiet, and an abort; the page sees no error", async () => {
      const result = await page.evaluate(() => (window as unknown as Check).webWorkersCheck.failures());
      expect(result.refused).toBe("the worker failed: not a request to learn meanings this worker can read");
      expect(result.badBatch).toBe("the worker failed: not a batch of notes this worker can read");
      expect(result.throws).toMatch(/^the worker failed: .*broken bundle/);
      expect(result.notJavaScript).toMatch(/^the worker failed: /);
      expect(result.aborted).toBe("the work was no longer wanted");
      expect(result.quiet).toBe("the worker said nothing for 300 ms while it held work, and was ended");
      expect(errors).toEqual([]);
      await page.close();
    });

    it("is learned by the plugin in a Web Worker, and Search vault then finds a note that says the word another way", async () => {
      const { page, errors } = await session().open("vault=large");
      await page.waitForFunction(() => (window as unknown as Plugin).workbench.plugin.index.status().vaultLanguage === "ready", null, { timeout: 120_000 });
      expect(await page.evaluate(() => (window as unknown as Plugin).workbench.plugin.index.languageLearnedIn())).toBe("worker");
      await page.evaluate(() => (window as unknown as Plugin).workbench.runCommand("search-vault"));
      await page.keyboard.insertText("pelican");
      await page.waitForSelector(".vault-research-search-result");
      const shown = await page.locator(".vault-research-search-result").evaluateAll((items) =>
        items.map((i) => ({ path: i.querySelector(".vault-research-search-result-path")!.textContent, said: i.querySelector(".vault-research-search-result-closeness")?.textContent ?? null })),
      );
      const paths = shown.map((s) => s.path);
      // Notes 0–15 of topic 0 say "pelican"; the others of that topic say "kestrel" and are found by meaning only, and say so.
      const byMeaning = shown.filter((s) => /Generated\/t0\/note (\d+)/.test(s.path) && Number(/note (\d+)/.exec(s.path)![1]) >= 16);
      expect(paths.length).toBeGreaterThan(4);
      expect(byMeaning.length, paths.join(", ")).toBeGreaterThan(0);
      for (const s of byMeaning) expect(s.said, s.path).toBe(BY_MEANING);
      for (const s of shown.filter((s) => !byMeaning.includes(s))) expect(s.said, s.path).toBeNull();
      expect(paths.every((p) => !/Generated\/t[123]\//.test(p)), paths.join(", ")).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    }, 180_000);
  });
}
