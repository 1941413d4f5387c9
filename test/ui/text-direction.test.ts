// @vitest-environment happy-dom
// Text from notes, the web or the user may be Arabic or Hebrew. Set in the panel's left-to-right
// flow, "كيف يدمج CRDT التعديلات؟" shows its words out of order and its question mark at the wrong
// end; every element that holds such text takes its direction from its own first words instead.
import { afterEach, describe, expect, it } from "vitest";
import type { App as ObsidianApp, WorkspaceLeaf as ObsidianLeaf } from "obsidian";
import { App, Component, Vault, WorkspaceLeaf } from "../stubs/obsidian";
import { citationTargets, renderAnswer } from "../../src/ui/answer-render";
import { renderOutsideCard, renderVaultCard } from "../../src/ui/evidence-cards";
import { ResearchView, type RunDeps } from "../../src/ui/research-view";
import { defaultSettings } from "../../src/settings";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";
import type { ResearchResult } from "../../src/research/types";

const ARABIC = "كيف يدمج CRDT التعديلات؟";
const noActions = { openNote: () => undefined, openUrl: () => undefined };

afterEach(() => {
  document.body.empty();
});

/** The elements under `root` whose own text includes `text`, with their dir attribute. */
function directions(root: HTMLElement, text: string): string[] {
  return [...root.querySelectorAll<HTMLElement>("*")]
    .filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && (n.textContent ?? "").includes(text)))
    .map((el) => `${el.className || el.tagName}: ${el.closest("[dir]")?.getAttribute("dir") ?? "inherited"}`);
}

describe("right-to-left text", () => {
  it("sets vault and outside cards' titles, paths, headings and snippets in their own direction", () => {
    const note = vaultRow(`ملاحظات/${ARABIC}.md`, ARABIC, [{ heading: ARABIC, text: `${ARABIC} نص` }]);
    const web = outsideRow("brave", "https://example.org/a", ARABIC, `${ARABIC} نص`);
    const root = document.body.createDiv();
    renderVaultCard(root, note, noActions);
    renderOutsideCard(root, web, noActions);
    const found = directions(root, "كيف يدمج");
    expect(found.length).toBeGreaterThanOrEqual(6);
    expect(found.filter((d) => !d.endsWith(": auto"))).toEqual([]);
  });

  it("sets each answer paragraph, list and list item, and each chip's title, in its own direction", async () => {
    const note = vaultRow("Notes/a.md", ARABIC, [{ heading: "", text: "x" }]);
    const el = document.body.createDiv();
    const markdown = `${ARABIC} [${note.source_key}]\n\n- ${ARABIC}\n- English item`;
    await renderAnswer(new App() as unknown as ObsidianApp, markdown, el, citationTargets(pack("q", [note])), noActions, new Component() as never);
    expect(el.querySelectorAll("p, ul, li").length).toBe(4);
    expect([...el.querySelectorAll("p, ul, li")].map((b) => b.getAttribute("dir"))).toEqual(["auto", "auto", "auto", "auto"]);
    expect(el.querySelector(".vault-research-chip-title")!.getAttribute("dir")).toBe("auto");
  });

  it("types and shows the question in its own direction", async () => {
    const app = new App({ vault: new Vault() });
    const view = new ResearchView(new WorkspaceLeaf(app) as unknown as ObsidianLeaf, {
      settings: defaultSettings(),
      runResearch: async (request) => ({ pack: pack(request.question, []), stop_reason: "no_evidence", trace: null }) as unknown as ResearchResult,
      prepareRun: async () => ({ ok: true, deps: {} as RunDeps }),
    });
    document.body.appendChild(view.containerEl);
    view.load();
    await (view as unknown as { onOpen(): Promise<void> }).onOpen();
    expect(view.contentEl.querySelector(".vault-research-input")!.getAttribute("dir")).toBe("auto");
    await view.ask(ARABIC);
    expect(view.contentEl.querySelector(".vault-research-question")!.getAttribute("dir")).toBe("auto");
  });
});
