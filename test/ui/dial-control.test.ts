// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import "../stubs/obsidian";
import { DialControl, levelThatWillRun, notReadyReason } from "../../src/ui/dial-control";
import { FakeDialHost, readinessUpTo, unavailableNotice } from "./dial/fake-dial-host";

/** Obsidian's show/hide (and the stand-in's) as the user sees it. */
const shown = (el: HTMLElement) => el.style.display !== "none";

function mount(host: FakeDialHost, surface: "search-modal" | "research-panel" = "search-modal", onChange?: (level: number) => void) {
  const parent = document.body.createDiv();
  const dial = new DialControl(parent, host, surface, onChange ? { onChange } : {});
  const radios = () => [...parent.querySelectorAll<HTMLInputElement>("input[type='radio']")];
  const choose = (level: number) => {
    const input = radios()[level - 1];
    input.checked = true;
    input.dispatchEvent(new Event("change"));
  };
  return { parent, dial, radios, choose };
}

describe("the dial control", () => {
  it("is one radio group of four named positions, not checkboxes", () => {
    const { parent, radios } = mount(new FakeDialHost());
    const group = parent.querySelector("[role='radiogroup']")!;
    expect(group.getAttribute("aria-label")).toBe("Search level");
    expect(radios()).toHaveLength(4);
    expect(parent.querySelectorAll("input[type='checkbox']")).toHaveLength(0);
    expect(new Set(radios().map((r) => r.name)).size).toBe(1);
    expect([...parent.querySelectorAll(".vault-research-dial-name")].map((n) => n.textContent)).toEqual(["Lexical", "Hybrid", "Multi-field", "Rerank"]);
  });

  it("two dials on one page do not share a radio group", () => {
    const a = mount(new FakeDialHost());
    const b = mount(new FakeDialHost());
    expect(a.radios()[0].name).not.toBe(b.radios()[0].name);
  });

  it("starts at the surface's remembered level", () => {
    const host = new FakeDialHost();
    host.levels["research-panel"] = 3;
    const { radios, dial } = mount(host, "research-panel");
    expect(radios().map((r) => r.checked)).toEqual([false, false, true, false]);
    expect(dial.level()).toBe(3);
  });

  it("moving it saves the level for its surface and tells the owner", async () => {
    const host = new FakeDialHost();
    const heard: number[] = [];
    const { choose, dial, parent } = mount(host, "research-panel", (level) => heard.push(level));
    choose(2);
    expect(dial.level()).toBe(2);
    expect(heard).toEqual([2]);
    expect(host.savedLevels).toEqual([["research-panel", 2]]);
    expect(host.levels["search-modal"]).toBe(1);
    expect(parent.querySelector(".vault-research-dial-position.is-checked")?.textContent).toContain("Hybrid");
  });

  it("marks levels that are not ready, with the reason in the radio's name, and keeps them choosable", () => {
    const host = new FakeDialHost();
    host.ready = readinessUpTo(1, "no_vectors");
    const { parent, radios, choose, dial } = mount(host);
    const positions = [...parent.querySelectorAll<HTMLElement>(".vault-research-dial-position")];
    expect(positions.map((p) => p.hasClass("is-not-ready"))).toEqual([false, true, true, true]);
    expect(positions[1].textContent).toBe("Hybrid, not ready: the vault has no vectors from this embedding model yet");
    expect(positions[1].getAttribute("title")).toBe("Not ready: the vault has no vectors from this embedding model yet");
    expect(radios().every((r) => !r.disabled)).toBe(true);
    const reason = parent.querySelector<HTMLElement>(".vault-research-dial-reason")!;
    expect(shown(reason)).toBe(false);
    choose(2);
    expect(dial.level()).toBe(2);
    expect(shown(reason)).toBe(true);
    expect(reason.textContent).toBe("Hybrid is not ready (the vault has no vectors from this embedding model yet), so searches run at Lexical.");
  });

  it("adds the embedding job's progress to the reason while it runs", () => {
    const host = new FakeDialHost();
    host.levels["search-modal"] = 3;
    host.ready = readinessUpTo(1, "no_vectors");
    host.status = "Embedding: 120 of 400 notes, about 2 minutes left.";
    const { parent } = mount(host);
    expect(parent.querySelector(".vault-research-dial-reason")?.textContent).toBe(
      "Multi-field is not ready (the vault has no vectors from this embedding model yet), so searches run at Lexical. Embedding: 120 of 400 notes, about 2 minutes left.",
    );
  });

  it("follows the host when readiness changes (an embedding job finished)", () => {
    const host = new FakeDialHost();
    host.ready = readinessUpTo(1);
    const { parent } = mount(host);
    host.ready = readinessUpTo(3);
    host.changed();
    const positions = [...parent.querySelectorAll<HTMLElement>(".vault-research-dial-position")];
    expect(positions.map((p) => p.hasClass("is-not-ready"))).toEqual([false, false, false, true]);
    expect(positions[3].textContent).toBe("Rerank, not ready: no chat model is set in settings");
    expect(positions[1].hasAttribute("title")).toBe(false);
  });

  it("says once, through its surface, when the level chosen becomes ready or stops being ready, and not when the user moves it", () => {
    const host = new FakeDialHost();
    host.levels["search-modal"] = 2;
    host.ready = readinessUpTo(1, "no_vectors");
    const said: string[] = [];
    const parent = document.body.createDiv();
    new DialControl(parent, host, "search-modal", { announce: (words) => said.push(words) });
    // It has no live region of its own: the panel's one live region is the surface's.
    expect(parent.querySelector("[role='status'], [aria-live]")).toBeNull();
    expect(said).toEqual([]);
    // The job's progress alone says nothing: what runs is the same.
    host.status = "Embedding: 120 of 400 notes.";
    host.changed();
    expect(said).toEqual([]);
    host.ready = readinessUpTo(3);
    host.changed();
    expect(said).toEqual(["Hybrid is ready."]);
    host.ready = readinessUpTo(1, "no_embedder");
    host.changed();
    expect(said).toEqual(["Hybrid is ready.", "Hybrid is not ready (no embedding model is set in settings), so searches run at Lexical."]);
    // The user's own move is said by the radio itself.
    const radio = parent.querySelectorAll<HTMLInputElement>("input[type='radio']")[2];
    radio.checked = true;
    radio.dispatchEvent(new Event("change"));
    host.changed();
    expect(said).toHaveLength(2);
  });

  it("stops listening when destroyed", () => {
    const host = new FakeDialHost();
    const { dial } = mount(host);
    expect(host.listenerCount()).toBe(1);
    dial.destroy();
    expect(host.listenerCount()).toBe(0);
  });
});

describe("which level will run", () => {
  it("is the highest ready level at or below the one chosen", () => {
    expect(levelThatWillRun(4, readinessUpTo(3))).toBe(3);
    expect(levelThatWillRun(3, readinessUpTo(1))).toBe(1);
    expect(levelThatWillRun(2, readinessUpTo(4))).toBe(2);
    expect(levelThatWillRun(1, readinessUpTo(4))).toBe(1);
  });

  it("says each reason in the dial's words", () => {
    expect(notReadyReason(unavailableNotice(2, "no_embedder"))).toBe("no embedding model is set in settings");
    expect(notReadyReason(unavailableNotice(4, "no_chat_model"))).toBe("no chat model is set in settings");
    expect(notReadyReason({ kind: "vectors_partial", embedded: 3, notes: 9, message: "Vectors cover 3 of 9 notes." })).toBe("Vectors cover 3 of 9 notes.");
    expect(notReadyReason(null)).toBe("not ready");
  });
});
