// The panel and the search modal with what a real vault and the web bring — a note name of 200
// characters without a space, a 500-character URL, a 60-line answer, 40 evidence rows, Arabic,
// Hebrew and emoji — at a 260 px sidebar and a 380 px phone: nothing pushes anything sideways,
// every level of the dial keeps its whole name, and the keyboard keeps its place. Layout is
// measured (scrollWidth against clientWidth), not timed.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ask, finished, lastTurn, setTheme } from "./panel-driver";
import type { BrowserSession } from "./workbench-server";

const LONG_NAME = "Averyveryverylongnotename".repeat(8);
const LONG_URL = `https://example.com/${"path/segment-".repeat(38)}end?q=${"x".repeat(20)}`;

/** Elements that overflow sideways inside `selector`, where the overflow is not a scroll box of its own or clipped on purpose. */
export async function sideways(page: Page, selector: string): Promise<string[]> {
  return page.evaluate((sel) => {
    const root = document.querySelector(sel);
    if (!root) return [`nothing matches ${sel}`];
    const box = root.getBoundingClientRect();
    const found: string[] = [];
    for (const el of [root, ...root.querySelectorAll<HTMLElement>("*")]) {
      if (el.closest("pre, .vault-research-visually-hidden, details:not([open]) > :not(summary)")) continue;
      const style = getComputedStyle(el);
      const clipped = style.overflowX !== "visible" || style.textOverflow === "ellipsis";
      const own = el.getBoundingClientRect();
      if (own.width > 0 && own.right > box.right + 1) found.push(`${el.className || el.tagName} sticks out ${Math.round(own.right - box.right)} px`);
      // A scroll box that scrolls sideways, other than code and tables made to.
      if (el.scrollWidth > el.clientWidth + 1 && ["auto", "scroll"].includes(style.overflowX) && !el.matches("pre, table, .vault-research-comparison-scroll")) found.push(`${el.className || el.tagName} scrolls sideways by ${el.scrollWidth - el.clientWidth} px`);
      if (el.scrollWidth > el.clientWidth + 1 && !clipped && el.clientWidth > 0) found.push(`${el.className || el.tagName} overflows by ${el.scrollWidth - el.clientWidth} px`);
    }
    return found;
  }, selector);
}

/** Dial positions whose name is cut short ("Multi-f…"). */
export async function cutNames(page: Page, selector: string): Promise<string[]> {
  return page.locator(`${selector} .vault-research-dial-name`).evaluateAll((names) => names.filter((n) => n.scrollWidth > n.clientWidth + 1).map((n) => n.textContent ?? ""));
}

/** Makes the panel's next runs bring long and right-to-left content (the pack is changed on its way to the panel). */
async function longContent(page: Page): Promise<void> {
  await page.evaluate(
    ({ name, url }) => {
      const wb = (window as unknown as { workbench: { app: { workspace: { leaves: { view?: { getViewType?(): string; host?: { runResearch(r: unknown, d: unknown): Promise<unknown> } } }[] } } } }).workbench;
      const host = wb.app.workspace.leaves.find((l) => l.view?.getViewType?.() === "vault-research-panel")!.view!.host!;
      const run = host.runResearch.bind(host);
      type Row = { source_key: string; title: string; note_path: string; sections: { heading: string; text: string; highlights?: unknown }[] };
      type Outside = { title: string; url: string; domain: string; content_sections: { text: string }[] };
      host.runResearch = async (request, deps) => {
        const result = (await run(request, deps)) as { pack: { evidence: Row[]; external_evidence: Outside[] }; answer?: { text: string } };
        const [first] = result.pack.evidence;
        first.title = name;
        first.note_path = `Folder/${name}.md`;
        first.sections[0] = { ...first.sections[0], heading: "كيف يعمل الدمج؟ 👩‍👩‍👧‍👦", text: `中文文本非常长的句子没有空格 ${url}`, highlights: [] };
        for (let i = 0; i < 40; i++) result.pack.evidence.push({ ...first, source_key: `src:${String(i).padStart(10, "0")}`, title: i % 2 ? `שלום עולם: סנכרון ${i}!` : `笔记名称 ${i} 🎉` });
        const outside = result.pack.external_evidence[0];
        if (outside) Object.assign(outside, { title: "", url, domain: `${"sub.".repeat(20)}example.com`, content_sections: [{ ...outside.content_sections[0], text: url }] });
        if (result.answer) result.answer.text += ["", ...Array.from({ length: 60 }, (_, i) => `Line ${i} ${i === 5 ? url : i === 6 ? name : "مرحبا بالعالم 🎉"}`)].join("\n");
        return result;
      };
    },
    { name: LONG_NAME, url: LONG_URL },
  );
}

export function longAndNarrowSuite(session: () => BrowserSession): void {
  describe("long content at narrow widths", () => {
    it("the panel at 260 px: long names, URLs, answers, 40 rows and right-to-left text stay inside it, the dial keeps its names", async () => {
      const { page, errors } = await session().open("layout=sidebar&model=fake", { width: 1000, height: 760 });
      await page.addStyleTag({ content: ".workbench-layout-sidebar .workbench-sidebar { flex-basis: 260px; }" });
      await longContent(page);
      await ask(page, `What changed in the latest Automerge release? ${"Questionwithoutspaces".repeat(10)}`, "always");
      await finished(page);
      expect(await lastTurn(page).locator(".vault-research-card.is-vault").count()).toBeGreaterThan(40);
      await lastTurn(page).locator(".vault-research-why summary").first().click();
      for (const theme of ["light", "dark"] as const) {
        await setTheme(page, theme);
        expect(await sideways(page, ".vault-research-panel")).toEqual([]);
      }
      expect(await cutNames(page, ".vault-research-panel")).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    });

    it("the search modal on a phone: a 200-character note name wraps, and the dial keeps its names", async () => {
      const { page, errors } = await session().open("layout=phone", { width: 380, height: 800 });
      await page.evaluate(async (name) => {
        const vault = (window as unknown as { workbench: { app: { vault: { createFolder(p: string): Promise<unknown>; create(p: string, d: string): Promise<unknown> } } } }).workbench.app.vault;
        await vault.createFolder("Folder");
        await vault.create(`Folder/${name}.md`, `# ${name}\n\nZanzibarquux merge notes: ${"https://example.com/" + "seg/".repeat(100)} 🎉\n`);
      }, LONG_NAME);
      // The index takes the new note in after its next update: search again until it is found.
      const found = page.locator(".vault-research-search-result", { hasText: LONG_NAME.slice(0, 40) }).first();
      for (let tries = 0; tries < 20 && !(await found.isVisible()); tries++) {
        if (tries > 0) await page.keyboard.press("Escape");
        await page.evaluate(() => (window as unknown as { workbench: { runCommand(id: string): void } }).workbench.runCommand("search-vault"));
        await page.keyboard.insertText("zanzibarquux merge");
        await found.waitFor({ timeout: 1000 }).catch(() => {});
      }
      expect(await sideways(page, ".modal")).toEqual([]);
      expect(await page.locator(".prompt-results").evaluate((r) => r.scrollWidth <= r.clientWidth)).toBe(true);
      expect(await cutNames(page, ".modal")).toEqual([]);
      await page.keyboard.press("Escape");
      expect(errors).toEqual([]);
      await page.close();
    });

    it("Add to vault by keyboard: focus stays on the card, then moves to the saved note's link", async () => {
      const { page, errors } = await session().open("layout=sidebar", { width: 1000, height: 760 });
      await ask(page, "What changed in the latest Automerge release?", "always");
      await finished(page);
      const card = lastTurn(page).locator(".vault-research-card.is-outside", { has: page.locator(".vault-research-card-domain", { hasText: "automerge.org" }) }).first();
      await card.getByRole("button", { name: "Add to vault" }).focus();
      await page.keyboard.press("Enter");
      expect(await card.evaluate((c) => c.contains(document.activeElement))).toBe(true);
      await card.locator(".vault-research-promote-link").waitFor({ timeout: 15_000 });
      await page.waitForFunction(() => !document.querySelector(".vault-research-card.is-promoting"));
      expect(await page.evaluate(() => document.activeElement?.className ?? "")).toContain("vault-research-promote-link");
      // And Tab goes on from there, not from the top of the app.
      await page.keyboard.press("Tab");
      expect(await card.evaluate((c) => c.contains(document.activeElement))).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    });
  });
}
