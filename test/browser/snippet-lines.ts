// A note's blocks on an evidence card: the index keeps one line break where a paragraph, a table
// row or a code block ends (index/section-hits.ts), and the card shows each such block on a line
// of its own — a table row under the one before it, code apart from the prose that leads into it —
// without a line spent on the "…" that says blocks were left out above, and without a long code
// line pushing the panel sideways. Measured in the page (where each line starts), not timed.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { ask, differing, finished, lastTurn, setTheme } from "./panel-driver";
import { compareScreenshot, type ScreenshotOutcome } from "./screenshots";
import { sideways } from "./long-and-narrow";
import type { BrowserSession } from "./workbench-server";

const LONG_CODE = `\`RELAY_DATA_DIR=/var/lib/relay RELAY_PORT=8787 node dist/relay.js --peers=${"relay-peer-".repeat(30)}end\``;
/** A section as the index gives it: blocks left out above, prose, a code line, two table rows, a row in Hebrew. */
const BLOCKS = ["…", "Run the relay like this:", LONG_CODE, "Automerge 2.x 0.6 MB 1.9 MB 140 ms", "Yjs 0.6 MB 1.3 MB 60 ms", "שורה בעברית: 1.3 MB"];

/** Makes the panel's next run show `text` as its first vault card's snippet, with "relay" marked. */
async function firstSnippet(page: Page, text: string): Promise<void> {
  await page.evaluate((snippet) => {
    const wb = (window as unknown as { workbench: { app: { workspace: { leaves: { view?: { getViewType?(): string; host?: { runResearch(r: unknown, d: unknown): Promise<unknown> } } }[] } } } }).workbench;
    const host = wb.app.workspace.leaves.find((l) => l.view?.getViewType?.() === "vault-research-panel")!.view!.host!;
    const run = host.runResearch.bind(host);
    host.runResearch = async (request, deps) => {
      const result = (await run(request, deps)) as { pack: { evidence: { sections: { heading: string; text: string; highlights?: [number, number][] }[] }[] } };
      const at = snippet.indexOf("relay");
      result.pack.evidence[0].sections[0] = { ...result.pack.evidence[0].sections[0], text: snippet, highlights: [[at, at + 5]] };
      return result;
    };
  }, text);
}

/**
 * Where each of `starts` begins on screen inside the first card's snippet: its top, and how far its
 * first letter is from the snippet's left edge (`indent`) and right edge (`fromRight`).
 */
async function lineStarts(page: Page, starts: string[]): Promise<{ top: number; indent: number; fromRight: number }[]> {
  return lastTurn(page)
    .locator(".vault-research-card.is-vault .vault-research-card-snippet")
    .first()
    .evaluate((el, wanted) => {
      const box = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      const [left, right] = [parseFloat(style.paddingLeft) || 0, parseFloat(style.paddingRight) || 0];
      // Text nodes in order, so an offset into the whole snippet is found in the node holding it.
      const nodes: Text[] = [];
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);
      const whole = nodes.map((n) => n.data).join("");
      return wanted.map((start) => {
        let at = whole.indexOf(start);
        if (at < 0) return { top: -1, indent: -1, fromRight: -1 };
        const node = nodes.find((n) => (at < n.data.length ? true : ((at -= n.data.length), false)))!;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + 1);
        const rect = range.getClientRects()[0];
        return { top: Math.round(rect.top - box.top), indent: Math.round(rect.left - box.left - left), fromRight: Math.round(box.right - right - rect.right) };
      });
    }, starts);
}

export function snippetLinesSuite(session: () => BrowserSession): void {
  describe("a note's blocks on an evidence card", () => {
    it("show a table row and a code line each on a line of their own, the ellipsis in front of the first, nothing sideways", async () => {
      const { page, errors } = await session().open("layout=sidebar", { width: 1000, height: 760 });
      await firstSnippet(page, BLOCKS.join("\n"));
      await ask(page, "How do I run the sync relay server?");
      await finished(page);
      const snippet = lastTurn(page).locator(".vault-research-card.is-vault .vault-research-card-snippet").first();
      expect(await snippet.locator(".vault-research-match").allTextContents()).toEqual(["relay"]);
      const [ellipsis, prose, code, row1, row2, hebrew] = await lineStarts(page, ["…", "Run the relay", "`RELAY_DATA_DIR", "Automerge 2.x", "Yjs 0.6", "שורה"]);
      // "…" and the first block share the first line: no line is spent on the ellipsis alone.
      expect(ellipsis).toMatchObject({ top: 0, indent: 0 });
      expect(prose.top).toBe(0);
      // Each later block starts a line of its own, at the snippet's edge, below the one before.
      for (const line of [code, row1, row2]) expect(line.indent).toBe(0);
      expect(code.top).toBeGreaterThan(prose.top);
      expect(row1.top).toBeGreaterThan(code.top);
      expect(row2.top).toBeGreaterThan(row1.top);
      // A block in Hebrew reads from the right, whatever the block before it.
      expect(hebrew.top).toBeGreaterThan(row2.top);
      expect(hebrew.fromRight).toBe(0);
      // Compared with their references, so a reviewer sees the lines as a reader does.
      await snippet.evaluate((el) => el.scrollIntoView({ block: "center" }));
      const shots: ScreenshotOutcome[] = [];
      for (const theme of ["light", "dark"] as const) {
        await setTheme(page, theme);
        expect(await sideways(page, ".vault-research-panel")).toEqual([]);
        const png = await page.locator(".workbench-sidebar").screenshot({ animations: "disabled", caret: "hide", mask: [page.locator(".vault-research-run-status")] });
        shots.push(await compareScreenshot(session().context, `snippet-lines-300-${theme}`, png));
      }
      expect(differing(shots)).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    });
  });
}
