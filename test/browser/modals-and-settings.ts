// The modals and the settings tab in the browser: axe-core finds nothing in either theme, Esc
// closes them as the app does, and the keyboard alone gets through them.
import { describe, expect, it } from "vitest";
import { ask, axeViolations, finished, lastTurn, setLayout, setTheme } from "./panel-driver";
import { compareScreenshot, type ScreenshotOutcome } from "./screenshots";
import type { BrowserSession } from "./workbench-server";

export function modalsAndSettingsSuite(session: () => BrowserSession, report: (line: string) => void): void {
  describe("modals and settings", () => {
    it("the ask, search and promote modals: no axe violations, Esc closes, the keyboard chooses", async () => {
      const { page, errors } = await session().open();
      const run = (id: string) => page.evaluate((c) => (window as unknown as { workbench: { runCommand(id: string): void } }).workbench.runCommand(c), id);
      const violations: string[] = [];
      const check = async (label: string) => {
        for (const theme of ["light", "dark"] as const) {
          await setTheme(page, theme);
          for (const v of await axeViolations(page, ".modal-container")) violations.push(`${label} ${theme}: ${v}`);
        }
        await setTheme(page, "light");
      };

      await run("ask-question");
      await page.waitForSelector(".vault-research-ask-input");
      await check("ask");
      await page.keyboard.press("Escape");
      expect(await page.locator(".modal-container").count()).toBe(0);

      await run("search-vault");
      // One input event: typed key by key, a slow machine may show a prefix's results first and
      // change them between reading the second result and pressing Enter.
      await page.keyboard.insertText("crdt merge");
      await page.waitForSelector(".vault-research-search-result");
      await check("search");
      await page.keyboard.press("ArrowDown");
      const second = await page.locator(".suggestion-item.is-selected .vault-research-search-result-path").textContent();
      await page.keyboard.press("Enter");
      expect(await page.locator(".modal-container").count()).toBe(0);
      const opened = await page.evaluate(() => (window as unknown as { workbench: { openedLinks(): string[] } }).workbench.openedLinks());
      expect(opened.at(-1)).toContain(second!);

      await ask(page, "What changed in the latest Automerge release?", "always");
      await finished(page);
      await lastTurn(page).locator(".vault-research-timeline summary").click();
      const trace = (await lastTurn(page).locator(".vault-research-stage[data-stage='trace'] .vault-research-stage-detail").textContent())!.replace(/^Trace note: /, "");
      await page.evaluate((t) => (window as unknown as { workbench: { openPromotePicker(t: string): Promise<void> } }).workbench.openPromotePicker(t), trace);
      await page.waitForSelector(".vault-research-promote-suggestion");
      await check("promote");
      await page.keyboard.press("Escape");
      expect(await page.locator(".modal-container").count()).toBe(0);

      report(`axe violations in the modals (ask, search, promote; light and dark): ${violations.length}`);
      expect(violations).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    });

    it("the settings tab: every field named, no axe violations, light and dark, at 390 px and wide, drawn both ways", async () => {
      const { page, errors } = await session().open("model=fake");
      const violations: string[] = [];
      const shots: ScreenshotOutcome[] = [];
      await page.evaluate(() => (window as unknown as { workbench: { openSettings(): void } }).workbench.openSettings());
      for (const theme of ["light", "dark"] as const) {
        await setTheme(page, theme);
        for (const v of await axeViolations(page, ".workbench-settings")) violations.push(`wide ${theme}: ${v}`);
      }
      await setLayout(page, "phone");
      for (const theme of ["light", "dark"] as const) {
        await setTheme(page, theme);
        for (const v of await axeViolations(page, ".workbench-settings")) violations.push(`390 ${theme}: ${v}`);
        shots.push(await compareScreenshot(session().context, `settings-390-${theme}`, await page.screenshot({ animations: "disabled", caret: "hide" })));
      }
      const unnamed = () =>
        page.locator(".workbench-settings").evaluate((root) => Array.from(root.querySelectorAll("input, select, textarea")).filter((el) => !el.getAttribute("aria-label") && !el.closest("label")).length);
      expect(await unnamed()).toBe(0);
      // The same tab as Obsidian 1.11–1.12 draw it: by its own display().
      await page.evaluate(() => (window as unknown as { workbench: { openSettings(version: string): void } }).workbench.openSettings("1.12.7"));
      for (const v of await axeViolations(page, ".workbench-settings")) violations.push(`390 dark, drawn by display(): ${v}`);
      expect(await unnamed()).toBe(0);
      expect(await page.locator(".workbench-settings .vault-research-privacy p").count()).toBeGreaterThan(0);
      report(`axe violations in the settings tab (light and dark, wide and 390 px; and as display() draws it): ${violations.length}`);
      expect(violations).toEqual([]);
      expect(shots.filter((s) => s.status === "different").map((s) => s.name)).toEqual([]);
      await page.keyboard.press("Escape");
      expect(await page.locator(".workbench-settings").count()).toBe(0);
      expect(errors).toEqual([]);
      await page.close();
    });
  });
}
