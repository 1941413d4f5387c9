// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import type { WorkspaceLeaf as ObsidianLeaf } from "obsidian";
import { App, Vault, WorkspaceLeaf } from "../stubs/obsidian";
import { ResearchView, type ResearchPanelHost, type RunDeps } from "../../src/ui/research-view";
import { defaultSettings } from "../../src/settings";
import { FakeDialHost, readinessUpTo } from "./dial/fake-dial-host";

async function openPanel(dial?: FakeDialHost) {
  const app = new App({ vault: new Vault() });
  const host: ResearchPanelHost = {
    settings: defaultSettings(),
    runResearch: async () => {
      throw new Error("not asked");
    },
    prepareRun: async () => ({ ok: true, deps: {} as RunDeps }),
    ...(dial ? { dial } : {}),
  };
  const view = new ResearchView(new WorkspaceLeaf(app) as unknown as ObsidianLeaf, host);
  document.body.appendChild(view.containerEl);
  view.load();
  await (view as unknown as { onOpen(): Promise<void> }).onOpen();
  return { view, el: view.contentEl };
}

describe("the dial in the research panel", () => {
  it("sits compact among the composer's controls, at the research level remembered", async () => {
    const dial = new FakeDialHost();
    dial.levels["research-panel"] = 2;
    dial.levels["search-modal"] = 4;
    const { el } = await openPanel(dial);
    const control = el.querySelector(".vault-research-controls .vault-research-dial.is-compact")!;
    expect(control).not.toBeNull();
    expect(control.querySelector("[role='radiogroup']")?.getAttribute("aria-label")).toBe("Vault search level");
    expect([...control.querySelectorAll<HTMLInputElement>("input[type='radio']")].map((r) => r.checked)).toEqual([false, true, false, false]);
  });

  it("remembers a move for the research panel only", async () => {
    const dial = new FakeDialHost();
    const { el } = await openPanel(dial);
    const multi = el.querySelector<HTMLInputElement>(".vault-research-dial-input[value='3']")!;
    multi.checked = true;
    multi.dispatchEvent(new Event("change"));
    expect(dial.savedLevels).toEqual([["research-panel", 3]]);
    expect(dial.levels["search-modal"]).toBe(1);
  });

  it("shows what is not ready and follows the settings when they change", async () => {
    const dial = new FakeDialHost();
    dial.ready = readinessUpTo(1);
    const { view, el } = await openPanel(dial);
    expect([...el.querySelectorAll(".vault-research-dial-position.is-not-ready")].map((p) => p.getAttribute("data-level"))).toEqual(["2", "3", "4"]);
    dial.levels["research-panel"] = 4;
    view.refreshSettings();
    expect(el.querySelector(".vault-research-dial-position.is-checked")?.getAttribute("data-level")).toBe("4");
    expect(el.querySelector(".vault-research-dial-reason")?.textContent).toBe("Rerank is not ready (no embedding model is set in settings), so searches run at Lexical.");
  });

  it("says through the panel's one live region when the level chosen becomes ready, leaving the status line as it is", async () => {
    const dial = new FakeDialHost();
    dial.levels["research-panel"] = 2;
    dial.ready = readinessUpTo(1, "no_vectors");
    const { el } = await openPanel(dial);
    const shown = el.querySelector(".vault-research-run-text")?.textContent;
    dial.ready = readinessUpTo(3);
    dial.changed();
    expect(el.querySelector(".vault-research-run-announcer")?.textContent).toBe("Hybrid is ready.");
    expect(el.querySelector(".vault-research-run-text")?.textContent).toBe(shown);
    expect(el.querySelectorAll("[role='status'], [aria-live]")).toHaveLength(1);
  });

  it("is absent without a dial host, and stops listening when the panel closes", async () => {
    const without = await openPanel();
    expect(without.el.querySelector(".vault-research-dial")).toBeNull();
    const dial = new FakeDialHost();
    const { view } = await openPanel(dial);
    expect(dial.listenerCount()).toBe(1);
    await (view as unknown as { onClose(): Promise<void> }).onClose();
    expect(dial.listenerCount()).toBe(0);
  });
});
