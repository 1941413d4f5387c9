// What the browser tests stand on: the workbench built into dist/workbench, served from
// 127.0.0.1 by a tiny static server, and Debian's Chromium driven by playwright-core — one
// browser for every suite (browser.test.ts runs them all), pages opened as each test needs.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const root = path.resolve(__dirname, "../..");
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumAvailable = existsSync(CHROMIUM);
export const artifacts = path.join(root, "test-artifacts");

const TYPES: Record<string, string> = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };

export function buildWorkbench(): void {
  execFileSync(process.execPath, [path.join(root, "workbench/build.mjs")], { cwd: root, stdio: "pipe" });
}

/** Serves dist/workbench on a free port of 127.0.0.1. */
export async function serveWorkbench(): Promise<{ url: string; close(): Promise<void> }> {
  const dir = path.join(root, "dist/workbench");
  const server: Server = createServer((req, res) => {
    const name = new URL(req.url ?? "/", "http://127.0.0.1").pathname.replace(/^\/+/, "") || "index.html";
    const file = path.join(dir, path.normalize(name));
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": TYPES[path.extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function launchChromium(): Promise<{ browser: Browser; context: BrowserContext; close(): Promise<void> }> {
  const profile = mkdtempSync(path.join(os.tmpdir(), "vault-research-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
    viewport: { width: 1100, height: 800 },
  });
  return {
    browser: context.browser()!,
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The one browser and server of a test run. */
export interface BrowserSession {
  url: string;
  context: BrowserContext;
  /** Opens the workbench (query parameters as the workbench README lists them) and waits until it is ready. */
  open(query?: string, viewport?: { width: number; height: number }): Promise<WorkbenchPage>;
}

export interface WorkbenchPage {
  page: Page;
  /** Every URL the page asked for, to prove what left. */
  requests: string[];
  /** Uncaught errors in the page. */
  errors: string[];
}

export async function startSession(): Promise<{ session: BrowserSession; close(): Promise<void> }> {
  buildWorkbench();
  mkdirSync(artifacts, { recursive: true });
  const server = await serveWorkbench();
  const chromium = await launchChromium();
  // Functions handed to page.evaluate are compiled by vitest, which may wrap them in esbuild's
  // name-keeping helper; the page needs it too.
  await chromium.context.addInitScript("globalThis.__name = (fn) => fn;");
  const session: BrowserSession = {
    url: server.url,
    context: chromium.context,
    async open(query = "", viewport = { width: 1100, height: 800 }) {
      const page = await chromium.context.newPage();
      await page.setViewportSize(viewport);
      const requests: string[] = [];
      const errors: string[] = [];
      page.on("request", (r) => void requests.push(r.url()));
      page.on("pageerror", (e) => void errors.push(e.message));
      await page.goto(`${server.url}?${query}`);
      await page.waitForFunction(() => (window as unknown as { workbench?: { ready: boolean } }).workbench?.ready === true, null, { timeout: 30_000 });
      return { page, requests, errors };
    },
  };
  return {
    session,
    close: async () => {
      await chromium.close();
      await server.close();
    },
  };
}
