// The workbench page: the real plugin loaded into the stand-in `obsidian` module, with the sample
// vault, `requestUrl` answered from recorded exchanges (through the replay adapter: Brave's
// answers and the pages behind some results, for "Add to vault") and a model stand-in. Query
// parameters choose the situation at load, and `workbench.configure` changes it later, so one page
// can be driven through every state:
//   theme=light|dark · external=on|off · web=ok|rate-limited|missing-key · model=none|fake|slow
//   · slowWeb=MS (delay every recorded web answer) · layout=wide|sidebar|phone · vault=sample|large
// Everything a test needs to check is recorded on `window.workbench`.
import { App, MarkdownView, notices, Platform, PluginSettingTab, setRequestUrlHandler, Vault, WorkspaceLeaf, type PluginManifest, type RequestUrlParam, type StandInResponse } from "../test/stubs/obsidian";
import data from "workbench:data";
import VaultResearchPlugin from "../src/main";
import { createReplayHttp, parseReplayFile, type RecordedExchange, type ReplayLogEntry } from "../src/websearch/replay";
import { RESEARCH_VIEW_TYPE } from "../src/ui/research-view";
import { PromoteResultModal } from "../src/ui/promote-modal";
import type { Settings } from "../src/settings";
import { laneVault } from "../test/support/lane-vault";

type Web = "ok" | "rate-limited" | "missing-key";
type Model = "none" | "fake" | "slow";
type Layout = "wide" | "sidebar" | "phone";

// A browser page has no Node: pages go through the stand-in requestUrl, as on mobile (on desktop
// they go over Node, plugin/desktop-pages.ts). The panel looks the same either way.
Platform.isDesktopApp = false;

const params = new URLSearchParams(location.search);
const theme = params.get("theme") === "dark" ? "dark" : "light";
const situation = {
  web: (params.get("web") ?? "ok") as Web,
  model: (params.get("model") ?? "none") as Model,
  slowWebMs: Number(params.get("slowWeb") ?? "0"),
};
const MODEL_BASE = "http://model.workbench.test/v1";
const BRAVE_KEY = "workbench-demo-key";

// Runs start at the same minute on every load (trace note names, recency of web results), so the
// screenshots compare; time still passes at its real pace from there.
const PINNED_START = Date.UTC(2026, 10, 30, 14, 12);
const loadedAt = performance.now();
Date.now = () => PINNED_START + Math.round(performance.now() - loadedAt);

const manifest: PluginManifest = { id: "vault-research", name: "Vault Research", author: "", version: "0.0.0", minAppVersion: "1.11.4", description: "" };

// ── what tests read ──
const record = {
  openedUrls: [] as string[],
  clipboard: [] as string[],
  webRequests: [] as ReplayLogEntry[],
  modelRequests: [] as string[],
  /** Requests to anywhere else (there should be none). */
  blocked: [] as string[],
  /** How often "Open settings" was asked for. */
  settingsOpened: 0,
};

window.open = ((url?: string | URL) => {
  record.openedUrls.push(String(url));
  return null;
});
Object.defineProperty(navigator, "clipboard", {
  configurable: true,
  value: { writeText: async (text: string) => void record.clipboard.push(text) },
});

// ── the network: recorded web answers, a model stand-in, nothing else ──
function recorded(name: string): RecordedExchange[] {
  const parsed = parseReplayFile(data.replay[name]);
  if (!parsed.ok) throw new Error(`Bad replay data (${name}): ${parsed.message}`);
  return parsed.exchanges;
}
const pages = recorded("brave-demo-pages");
/** Sites whose recorded pages the workbench may answer with; any other page is refused. */
const pageOrigins = new Set(pages.map((e) => new URL(e.url).origin));
function exchanges(web: Web): RecordedExchange[] {
  if (web !== "rate-limited") return [...recorded("brave-demo"), ...pages];
  // One recorded 429 answers both Brave endpoints.
  const limited = recorded("rate-limited")[0];
  return [limited, { ...limited, url: "https://api.search.brave.com/res/v1/llm/context" }, ...pages];
}
const replayFor = (web: Web) => createReplayHttp(exchanges(web), { sourceName: "the workbench recordings", onRequest: (entry) => void record.webRequests.push(entry) });
let replay = replayFor(situation.web);
const sleep = (ms: number) => new Promise((r) => window.setTimeout(r, ms));
const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
};

/** Where the web's recorded answers come from in this situation, in the words a trace note shows. */
function replayedFrom(web: Web): string {
  const search = web === "rate-limited" ? "fixtures/websearch/brave-web/rate-limited-with-retry-after.json" : "fixtures/replay/brave-demo";
  return `${search} and fixtures/replay/brave-demo-pages (the workbench's recordings)`;
}
const PAGES_REPLAYED_FROM = "fixtures/replay/brave-demo-pages (the workbench's recordings)";

/**
 * Every run and promotion here is answered from the recordings above, so they say so as the CLI's do
 * with `--replay`: each run's trace records `replayed_from` (the trace note's "Recorded sample
 * responses" callout, and `replayed_from` on a note promoted from it), and a promoted note says its
 * page text is a recorded sample page, not one fetched live (the plugin's `replayed`).
 */
const replayed = { runs: () => replayedFrom(situation.web), pages: () => PAGES_REPLAYED_FROM };

async function answerRequest(request: RequestUrlParam): Promise<StandInResponse> {
  if (request.url.startsWith(MODEL_BASE)) return answerAsModel(request);
  if (!request.url.startsWith("https://api.search.brave.com/") && !pageOrigins.has(originOf(request.url))) {
    record.blocked.push(request.url);
    throw new Error("The workbench has no network.");
  }
  if (situation.slowWebMs > 0) await sleep(situation.slowWebMs);
  const response = await replay.request({ method: (request.method ?? "GET") as "GET" | "POST", url: request.url, headers: request.headers, body: typeof request.body === "string" ? request.body : undefined });
  return { status: response.status, headers: response.headers, body: response.text };
}

/**
 * An OpenAI-compatible stand-in: cites the first vault and outside keys it was shown, repeats text
 * a hostile page might plant (links, images, HTML), and writes a table and code, as answers do.
 */
async function answerAsModel(request: RequestUrlParam): Promise<StandInResponse> {
  const prompt = typeof request.body === "string" ? request.body : "";
  record.modelRequests.push(prompt);
  if (situation.model === "slow") await sleep(60_000);
  // The prompt's instructions show an example key; the evidence keys are the others.
  const keys = [...prompt.matchAll(/(?:src|ext:[a-z0-9-]+):[0-9a-f]{10}/g)].map((m) => m[0]).filter((k) => !k.endsWith(":0123456789"));
  const src = keys.find((k) => k.startsWith("src:"));
  const ext = keys.find((k) => k.startsWith("ext:"));
  const lines = [
    src ? `Your notes say local-first apps keep working offline and merge changes later [${src}].` : "",
    ext ? `Outside your vault, the latest release notes describe lower memory use [${ext}].` : "",
    "",
    'A page said: see [the changelog](https://evil.example/steal) ![pixel](https://evil.example/pixel.png) <img src="https://evil.example/img.png"> **bold stays bold**.',
    "",
    "| Version | Memory |",
    "| --- | --- |",
    "| 2.x | 1.9 MB |",
    "| 3.0 | 0.7 MB |",
    "",
    "```js",
    "const doc = Automerge.from({ notes: [] })",
    "```",
  ];
  const content = lines.filter((l, i) => l !== "" || i > 1).join("\n");
  return {
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "workbench-model", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] }),
  };
}
setRequestUrlHandler(answerRequest);

// ── the app ──
document.body.addClass(`theme-${theme}`, "workbench");
const shell = document.body.createDiv("workbench-shell");
const toolbar = shell.createDiv("workbench-toolbar");
const columns = shell.createDiv("workbench-columns");
const noteEl = columns.createDiv("workbench-note");
const sidebar = columns.createDiv("workbench-sidebar");

const vault = new Vault("Sample vault");
for (const [path, text] of Object.entries(data.vault)) vault.seed(path, text, Date.UTC(2026, 0, 1));
// vault=large: 520 more notes, enough for the plugin to learn the vault's language (in a Web Worker).
if (params.get("vault") === "large") for (const [path, text] of Object.entries(laneVault())) vault.seed(`Generated/${path}`, text, Date.UTC(2026, 0, 1));
const app = new App({ vault, appId: "workbench" });

// The research leaf lives in the sidebar; the note being written lives in the main area.
app.workspace.getRightLeaf = () => {
  const leaf = new WorkspaceLeaf(app);
  app.workspace.leaves.push(leaf);
  const setViewState = leaf.setViewState.bind(leaf);
  leaf.setViewState = async (state) => {
    await setViewState(state);
    if (leaf.view) sidebar.appendChild(leaf.view.containerEl);
  };
  return leaf;
};
const draftLeaf = new WorkspaceLeaf(app);
const draft = new MarkdownView(draftLeaf, vault.seed("Drafts/Answer draft.md", ""), "# Answer draft\n\n");
draft.editor.setCursor({ line: 2, ch: 0 });
draftLeaf.view = draft;
app.workspace.mostRecentLeaf = draftLeaf;
noteEl.createDiv({ cls: "workbench-note-title", text: "Drafts/Answer draft.md" });
const draftText = noteEl.createEl("pre", { cls: "workbench-note-text" });
const showDraft = () => draftText.setText(draft.editor.getValue());
showDraft();

const plugin = new VaultResearchPlugin(app as never, manifest);
plugin.replayed = replayed;
const standInPlugin = plugin as unknown as { storedData: unknown; settings: Settings };
const modelSettings = (model: Model): Partial<Settings["model"]> =>
  model === "none" ? { kind: "none" } : { kind: "openai", baseUrl: MODEL_BASE, model: "workbench-model", timeoutMs: 120_000 };
standInPlugin.storedData = {
  // A minute for the web stage: a slow recorded answer (slowWeb) is cancelled by the test, not the stage's clock.
  external: { enabled: params.get("external") !== "off", providers: ["brave"], timeoutMs: 60_000, sourceTimeoutMs: 60_000 },
  model: modelSettings(situation.model),
  notes: { writeTraceNotes: true },
};
if (situation.web !== "missing-key") app.secretStorage.setSecret("vault-research-brave", BRAVE_KEY);

let settingsEl: HTMLElement | null = null;
const workbench = {
  record,
  app,
  plugin,
  ready: false,
  notices: () => notices.map((n) => n.message),
  openedLinks: () => app.workspace.openedLinks.map((l) => l.linktext),
  draft: () => draft.editor.getValue(),
  runCommand(id: string): void {
    const command = app.commands.get(`vault-research:${id}`);
    if (!command) throw new Error(`No command ${id}`);
    if (command.editorCallback) command.editorCallback(draft.editor, draft);
    else if (command.checkCallback) command.checkCallback(false);
    else command.callback?.();
  },
  /** The "Promote a result from this trace" picker over a trace note's outside rows (the command needs the app's metadata cache). */
  async openPromotePicker(tracePath: string): Promise<void> {
    const listed = await plugin.promoter.rowsOfTrace(tracePath);
    if ("error" in listed) throw new Error(listed.error.message);
    new PromoteResultModal(app as never, listed.rows, () => {}).open();
  },
  /** Changes the situation without reloading: the web's answers, the model, how slow the web is. */
  configure(next: Partial<typeof situation>): void {
    Object.assign(situation, next);
    replay = replayFor(situation.web);
    if (situation.web === "missing-key") app.secretStorage.setSecret("vault-research-brave", "");
    else app.secretStorage.setSecret("vault-research-brave", BRAVE_KEY);
    Object.assign(standInPlugin.settings.model, modelSettings(situation.model));
  },
  /** The settings window; `obsidianVersion` below 1.13 has the tab draw itself (`display()`), as older apps do. */
  openSettings(obsidianVersion?: string): void {
    const tab = app.settingTabs[0];
    settingsEl?.remove();
    settingsEl = document.body.createDiv("modal-container workbench-settings");
    settingsEl.createDiv("modal-bg");
    const modal = settingsEl.createDiv({ cls: "modal mod-settings", attr: { role: "dialog", "aria-label": "Settings" } });
    const close = modal.createEl("button", { cls: "modal-close-button", attr: { "aria-label": "Close" }, text: "×" });
    close.addEventListener("click", () => workbench.closeSettings());
    modal.appendChild(tab.containerEl);
    // As Obsidian 1.13's settings modal opens it (drawn from its definitions), or an older app's.
    tab.open(obsidianVersion);
    close.focus();
  },
  closeSettings(): void {
    (app.settingTabs[0] as PluginSettingTab | undefined)?.hide();
    settingsEl?.remove();
    settingsEl = null;
  },
  setTheme(next: "light" | "dark"): void {
    document.body.removeClass("theme-light", "theme-dark");
    document.body.addClass(`theme-${next}`);
  },
  /** wide: note and a 420 px sidebar · sidebar: a 300 px sidebar · phone: the panel is the screen, as on mobile. */
  setLayout(layout: Layout): void {
    document.body.removeClass("workbench-layout-wide", "workbench-layout-sidebar", "workbench-layout-phone", "is-phone", "is-mobile");
    document.body.addClass(`workbench-layout-${layout}`);
    if (layout === "phone") document.body.addClass("is-phone", "is-mobile");
  },
};
(window as unknown as { workbench: typeof workbench }).workbench = workbench;
workbench.setLayout((params.get("layout") as Layout | null) ?? "wide");

// "Open settings" in the panel goes through the app's own settings window, as in Obsidian.
(app as unknown as { setting: { open(): void; openTabById(id: string): void } }).setting = {
  open: () => void (record.settingsOpened += 1),
  openTabById: () => workbench.openSettings(),
};
// As in the app, Esc closes the settings window.
document.addEventListener("keydown", (evt) => {
  if (evt.key === "Escape" && settingsEl) {
    evt.preventDefault();
    workbench.closeSettings();
  }
});

const button = (text: string, onClick: () => void) => toolbar.createEl("button", { text, cls: "workbench-button" }).addEventListener("click", onClick);
button("Ask a research question", () => workbench.runCommand("ask-question"));
button("Research the selection", () => workbench.runCommand("research-selection"));
button("Settings", () => workbench.openSettings());
button("Dark or light", () => workbench.setTheme(document.body.hasClass("theme-dark") ? "light" : "dark"));
window.setInterval(showDraft, 250);

plugin.load();
void (async () => {
  // onload is async: wait until it has registered the view.
  while (!app.workspace.viewCreators.has(RESEARCH_VIEW_TYPE)) await sleep(5);
  app.workspace.triggerLayoutReady();
  while (plugin.index.status().state !== "ready") await sleep(20);
  await plugin.openResearchPanel();
  workbench.ready = true;
  document.body.addClass("workbench-ready");
})();
