// Driving the workbench's research panel from a test: ask, wait for the turn, switch layout and
// theme, run axe-core on a part of the page, take the screenshots of a state.
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import { compareScreenshot, type ScreenshotOutcome } from "./screenshots";
import { root, type BrowserSession } from "./workbench-server";

export type Mode = "never" | "on-weak" | "always";
export type Layout = "sidebar" | "phone";
export type Theme = "light" | "dark";

/** The two narrow places the panel lives: a 300 px sidebar on a desktop, a 390 px phone. */
export const LAYOUTS: Record<Layout, { viewport: { width: number; height: number }; shot: (page: Page) => Locator }> = {
  sidebar: { viewport: { width: 1000, height: 760 }, shot: (page) => page.locator(".workbench-sidebar") },
  phone: { viewport: { width: 390, height: 760 }, shot: (page) => page.locator("body") },
};

export async function ask(page: Page, question: string, mode: Mode = "never"): Promise<void> {
  await page.selectOption(".vault-research-mode", mode);
  await page.fill(".vault-research-input", question);
  await page.press(".vault-research-input", "Enter");
}

export const lastTurn = (page: Page) => page.locator(".vault-research-turn").last();

export async function finished(page: Page): Promise<void> {
  await page.waitForSelector(".vault-research-turn:last-child:not(.is-running)", { timeout: 30_000 });
}

export async function newChat(page: Page): Promise<void> {
  await page.click(".vault-research-new-chat");
}

export async function setLayout(page: Page, layout: Layout): Promise<void> {
  await page.setViewportSize(LAYOUTS[layout].viewport);
  await page.evaluate((l) => (window as unknown as { workbench: { setLayout(l: string): void } }).workbench.setLayout(l), layout);
}

export async function setTheme(page: Page, theme: Theme): Promise<void> {
  await page.evaluate((t) => (window as unknown as { workbench: { setTheme(t: string): void } }).workbench.setTheme(t), theme);
}

export async function configure(page: Page, situation: { web?: "ok" | "rate-limited" | "missing-key"; model?: "none" | "fake" | "slow"; slowWebMs?: number }): Promise<void> {
  await page.evaluate((s) => (window as unknown as { workbench: { configure(s: unknown): void } }).workbench.configure(s), situation);
}

const axeSource = readFileSync(path.join(root, "node_modules/axe-core/axe.min.js"), "utf8");

/** axe-core's violations inside `selector`, one line each: "rule (impact) ×nodes: first targets". */
export async function axeViolations(page: Page, selector: string): Promise<string[]> {
  const loaded = await page.evaluate(() => "axe" in window);
  if (!loaded) await page.addScriptTag({ content: axeSource });
  return page.evaluate(async (sel) => {
    const axe = (window as unknown as { axe: { run(ctx: Element, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[]; failureSummary?: string }[] }[] }> } }).axe;
    const target = document.querySelector(sel);
    if (!target) return [`nothing matches ${sel}`];
    const { violations } = await axe.run(target, { resultTypes: ["violations"] });
    return violations.map((v) => `${v.id} (${v.impact}) ×${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => `${n.target.join(" ")} — ${n.failureSummary?.split("\n")[1]?.trim() ?? ""}`).join(" | ")}`);
  }, selector);
}

/** Parts that change from run to run (the time things took), painted over in screenshots. */
const VARYING = [".vault-research-timeline-time", ".vault-research-run-status", ".vault-research-run-elapsed"];

/**
 * The state as a user sees it at a 300 px sidebar and a 390 px phone, light and dark: four
 * screenshots, each compared with its reference, and axe-core run on the panel in each.
 */
export async function shootState(session: BrowserSession, page: Page, name: string, options: { before?: (page: Page) => Promise<void> } = {}): Promise<{ shots: ScreenshotOutcome[]; violations: string[] }> {
  const shots: ScreenshotOutcome[] = [];
  const violations: string[] = [];
  for (const layout of ["sidebar", "phone"] as const) {
    await setLayout(page, layout);
    await options.before?.(page);
    for (const theme of ["light", "dark"] as const) {
      await setTheme(page, theme);
      // Colours are checked in both themes; the phone's larger targets change no rule axe checks, so once.
      if (layout === "sidebar" || theme === "light") for (const v of await axeViolations(page, ".vault-research-panel")) violations.push(`${layout} ${theme}: ${v}`);
      const png = await LAYOUTS[layout].shot(page).screenshot({ animations: "disabled", caret: "hide", mask: VARYING.map((s) => page.locator(s)) });
      shots.push(await compareScreenshot(session.context, `${name}-${layout === "sidebar" ? 300 : 390}-${theme}`, png));
    }
  }
  await setTheme(page, "light");
  return { shots, violations };
}

/** Screenshots that differ from their reference, for an expect(...).toEqual([]). */
export function differing(shots: readonly ScreenshotOutcome[]): string[] {
  return shots.filter((s) => s.status === "different").map((s) => `${s.name}: ${s.differing} of ${s.total} pixels differ (see test-artifacts/${s.name}.diff.png)`);
}

/**
 * The lowest contrast of any text inside `selector`: each element's own text colour against the
 * first opaque background behind it (alpha-blended), as WCAG computes it.
 */
export async function lowestContrast(page: Page, selector: string): Promise<{ ratio: number; where: string; text: string }> {
  return page.evaluate((sel) => {
    const parse = (c: string) => (c.match(/[\d.]+/g) ?? ["0", "0", "0", "0"]).map(Number);
    const lum = ([r, g, b]: number[]) => {
      const lin = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    };
    const blend = (top: number[], bottom: number[]) => {
      const a = top[3] ?? 1;
      return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a));
    };
    const background = (el: Element | null): number[] => {
      const layers: number[][] = [];
      for (let e = el; e; e = e.parentElement) {
        const c = parse(getComputedStyle(e).backgroundColor);
        const alpha = c[3] ?? 1;
        if (alpha > 0) layers.push(c);
        if (alpha >= 1) break;
      }
      return layers.reduceRight((under, layer) => blend(layer, under), [255, 255, 255]);
    };
    let worst = { ratio: 21, where: "", text: "" };
    for (const el of document.querySelector(sel)?.querySelectorAll<HTMLElement>("*") ?? []) {
      const own = Array.from(el.childNodes).filter((n) => n.nodeType === 3 && n.textContent!.trim() !== "").map((n) => n.textContent!.trim()).join(" ");
      const style = getComputedStyle(el);
      if (!own || el.getClientRects().length === 0 || style.visibility === "hidden" || el.closest(".vault-research-visually-hidden, [aria-hidden='true']")) continue;
      const bg = background(el);
      const fg = blend(parse(style.color), bg);
      const [l1, l2] = [lum(fg), lum(bg)].sort((a, b) => b - a);
      const ratio = (l1 + 0.05) / (l2 + 0.05);
      if (ratio < worst.ratio) worst = { ratio: Math.round(ratio * 100) / 100, where: el.className || el.tagName, text: own.slice(0, 40) };
    }
    return worst;
  }, selector);
}
