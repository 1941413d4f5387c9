// "Add to vault" in a real browser: the workbench (real plugin, stand-in `obsidian`, sample vault,
// recorded Brave answers and recorded pages) driven in Chromium. A web result becomes a note, the
// card says so, and the next question finds that note as vault evidence.
import path from "node:path";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { outsideVaultLabel } from "../../src/evidence/labels";
import { artifacts, type BrowserSession } from "./workbench-server";

const QUESTION = "What changed in the latest Automerge release?";
const PAGE_URL = "https://automerge.org/blog/automerge-3/";
const BLOG_TITLE = "Automerge 3.0: lower memory, one API";

interface WorkbenchHandle {
  ready: boolean;
  record: { webRequests: { url: string }[]; blocked: string[] };
  openedLinks(): string[];
  app: { vault: { getMarkdownFiles(): { path: string }[]; adapter: { read(path: string): Promise<string> } } };
}
const wb = (page: Page) => <T>(fn: (w: WorkbenchHandle) => T | Promise<T>) =>
  page.evaluate<T>(`(${fn.toString()})(window.workbench)`);

export function promotePanelSuite(session: () => BrowserSession): void {
describe("Add to vault in Chromium", () => {
  async function askWithWeb(page: Page, question: string): Promise<void> {
    const turns = await page.locator(".vault-research-turn").count();
    await page.selectOption(".vault-research-mode", "always");
    await page.fill(".vault-research-input", question);
    await page.press(".vault-research-input", "Enter");
    await page.waitForSelector(`.vault-research-turn:nth-child(${turns + 1}):not(.is-running)`, { timeout: 30_000 });
  }

  it("saves the automerge.org result as a note, marks the card promoted, and the next run finds it in the vault", async () => {
    const page = await session().context.newPage();
    const requests: string[] = [];
    const errors: string[] = [];
    page.on("request", (r) => void requests.push(r.url()));
    page.on("pageerror", (e) => void errors.push(e.message));
    await page.goto(session().url);
    await page.waitForFunction(() => (window as unknown as { workbench?: { ready: boolean } }).workbench?.ready === true, null, { timeout: 30_000 });

    await askWithWeb(page, QUESTION);
    const first = page.locator(".vault-research-turn").last();
    const card = first.locator(".vault-research-card.is-outside", { has: page.locator(".vault-research-card-title", { hasText: BLOG_TITLE }) });
    expect(await card.count()).toBe(1);
    const key = await card.getAttribute("data-source-key");
    expect(await card.locator(".vault-research-badge").textContent()).toBe(outsideVaultLabel("brave", "ephemeral"));
    // Every outside card offers it; no vault card does.
    expect(await first.locator(".vault-research-card.is-outside .vault-research-card-action").count()).toBe(await first.locator(".vault-research-card.is-outside").count());
    expect(await first.locator(".vault-research-card.is-vault .vault-research-card-action").count()).toBe(0);

    await card.getByRole("button", { name: "Add to vault" }).click();
    const link = card.locator(".vault-research-promote-link");
    await link.waitFor({ timeout: 15_000 });
    const status = await card.locator(".vault-research-promote-status").textContent();
    expect(status).toMatch(/^Saved as \[\[.+\]\]$/);
    expect(await card.locator(".vault-research-badge").textContent()).toBe(outsideVaultLabel("brave", "promoted"));
    expect(await card.getByRole("button", { name: "Add to vault" }).count()).toBe(0);
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(artifacts, "promote-saved.png") });

    await link.click();
    const opened = (await wb(page)((w) => w.openedLinks())).at(-1)!;
    expect(opened).toMatch(/^Research\/Sources\/.+\.md$/);
    expect(status).toBe(`Saved as [[${path.basename(opened, ".md")}]]`);

    // The page came through the plugin's Http (recorded), and nothing else left the page.
    const web = await wb(page)((w) => ({ urls: w.record.webRequests.map((r) => r.url), blocked: w.record.blocked }));
    expect(web.urls).toContain(PAGE_URL);
    expect(web.blocked).toEqual([]);
    expect(requests.filter((u) => !u.startsWith(session().url))).toEqual([]);

    // The trace note of the run records it.
    const traces = await wb(page)(async (w) => {
      const files = w.app.vault.getMarkdownFiles().filter((f) => f.path.startsWith("Research/Traces/"));
      return Promise.all(files.map((f) => w.app.vault.adapter.read(f.path)));
    });
    expect(traces.some((t) => t.includes(`**${outsideVaultLabel("brave", "promoted")}** · \`${key}\``))).toBe(true);

    // Asked again: the page is vault evidence now, and no longer an outside row.
    await askWithWeb(page, QUESTION);
    const second = page.locator(".vault-research-turn").last();
    const paths = await second.locator(".vault-research-card.is-vault .vault-research-card-path").allTextContents();
    expect(paths).toContain(opened);
    expect(await second.locator(`.vault-research-card.is-outside[data-source-key="${key}"]`).count()).toBe(0);
    expect(await second.locator(".vault-research-card.is-outside").count()).toBeGreaterThan(0);
    const asNote = second.locator(".vault-research-card.is-vault", { has: page.locator(".vault-research-card-path", { hasText: opened }) });
    await asNote.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(artifacts, "promote-found-in-vault.png") });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("falls back to the provider's excerpt when the page cannot be fetched, and says so", async () => {
    const page = await session().context.newPage();
    await page.goto(session().url);
    await page.waitForFunction(() => (window as unknown as { workbench?: { ready: boolean } }).workbench?.ready === true, null, { timeout: 30_000 });
    await askWithWeb(page, QUESTION);
    // The Hacker News result has no recorded page: the workbench refuses the request.
    const card = page.locator(".vault-research-turn").last().locator(".vault-research-card.is-outside", { has: page.locator(".vault-research-card-domain", { hasText: "news.ycombinator.com" }) });
    await card.getByRole("button", { name: "Add to vault" }).click();
    await card.locator(".vault-research-promote-link").waitFor({ timeout: 15_000 });
    const opened = await card.locator(".vault-research-promote-link").getAttribute("data-href");
    expect(opened).toMatch(/^Research\/Sources\//);
    const text = await page.evaluate((p) => (window as unknown as { workbench: WorkbenchHandle }).workbench.app.vault.adapter.read(p), opened!);
    expect(text).toMatch(/extract_status: fallback_snippet:/);
    expect(await wb(page)((w) => w.record.blocked)).toEqual(["https://news.ycombinator.com/item?id=40000001"]);
    await page.close();
  });
});
}
