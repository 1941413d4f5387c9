// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, openModals, Vault } from "../stubs/obsidian";
import type { SearchResult, SectionHit } from "../../src/index/types";
import { VaultIndex } from "../../src/index/vault-index";
import { ObsidianNoteStore } from "../../src/plugin/obsidian-note-store";
import { mergeHighlights, renderSnippet, VaultSearchModal, type VaultSearcher } from "../../src/ui/search-modal";

/** The stand-in as the type the code under test expects. */
const real = (app: App) => app as unknown as ObsidianApp;

/** What a keystroke does: the modal hears an input event and asks for suggestions. */
function type(modal: VaultSearchModal, text: string): void {
  modal.inputEl.value = text;
  modal.inputEl.dispatchEvent(new Event("input"));
}

function section(over: Partial<SectionHit> = {}): SectionHit {
  return { heading: "", headingPath: [], level: 0, line: 1, start: 0, end: 10, snippet: "", highlights: [], matchedTerms: [], closeTerms: [], score: 1, ...over };
}

function at(text: string, word: string): [number, number] {
  const i = text.indexOf(word);
  return [i, i + word.length];
}

function result(over: Partial<SearchResult> = {}): SearchResult {
  return {
    path: "Notes/Kites.md",
    title: "Kites",
    score: 1,
    tags: [],
    sections: [],
    explanation: { matchedTerms: [], missingTerms: [], fields: {}, parts: [], termWeights: {}, termNotes: {} },
    ...over,
  };
}

describe("vault search modal", () => {
  let app: App;
  beforeEach(() => {
    app = new App({ vault: new Vault() });
    openModals.length = 0;
  });
  afterEach(() => openModals.forEach((m) => m.close()));

  it("shows live results from the real index, marking the matched words", async () => {
    const vault = app.vault;
    vault.seed("Hobbies/Kites.md", "# Kites\n\n## Flying in strong wind\n\nA delta kite flies well when the wind is strong.\n");
    vault.seed("Hobbies/Boats.md", "# Boats\n\nSailing needs wind too.\n");
    const store = new ObsidianNoteStore(real(app).vault);
    const index = new VaultIndex();
    await index.sync(store, null);

    const modal = new VaultSearchModal(real(app), index, store);
    modal.open();
    type(modal, "kite");
    const first = await vi.waitFor(() => {
      const item = modal.resultContainerEl.querySelector(".suggestion-item");
      if (!item) throw new Error("no suggestions yet");
      return item;
    });
    expect(first.querySelector(".vault-research-search-result-title")?.textContent).toBe("Kites");
    expect(first.querySelector(".vault-research-search-result-path")?.textContent).toBe("Hobbies/Kites.md");
    const marks = [...first.querySelectorAll(".vault-research-match")].map((m) => m.textContent?.toLowerCase());
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((m) => m?.startsWith("kite"))).toBe(true);
  });

  it("asks the index for at most 20 notes and nothing for an empty query", async () => {
    const calls: { query: string; limit?: number }[] = [];
    const searcher: VaultSearcher = {
      search: async (query, _store, options) => {
        calls.push({ query, limit: options?.limit });
        return [];
      },
    };
    const modal = new VaultSearchModal(real(app), searcher, new ObsidianNoteStore(real(app).vault));
    expect(await modal.getSuggestions("   ")).toEqual([]);
    await modal.getSuggestions("tar extract");
    expect(calls).toEqual([{ query: "tar extract", limit: 20 }]);
  });

  it("says what went wrong when the search fails", async () => {
    const searcher: VaultSearcher = {
      search: async () => {
        throw new Error("index is being rebuilt");
      },
    };
    const modal = new VaultSearchModal(real(app), searcher, new ObsidianNoteStore(real(app).vault));
    modal.open();
    type(modal, "x");
    await vi.waitFor(() => expect(modal.resultContainerEl.textContent).toContain("index is being rebuilt"));
  });

  it("renders the best section's heading path and a snippet whose markup stays text", () => {
    const modal = new VaultSearchModal(real(app), { search: async () => [] }, new ObsidianNoteStore(real(app).vault));
    const el = createDiv();
    const snippet = "…use <b>tar</b> -xzf to extract";
    modal.renderSuggestion(
      result({ sections: [section({ heading: "Extract", headingPath: ["Archives", "Extract"], snippet, highlights: [at(snippet, "tar"), at(snippet, "extract")] })] }),
      el,
    );
    expect(el.querySelector(".vault-research-search-result-heading")?.textContent).toBe("Archives › Extract");
    const snippetEl = el.querySelector(".vault-research-search-result-snippet")!;
    expect(snippetEl.textContent).toBe(snippet);
    expect(snippetEl.querySelector("b")).toBeNull();
    expect([...snippetEl.querySelectorAll(".vault-research-match")].map((m) => m.textContent)).toEqual(["tar", "extract"]);
  });

  it("opens the note at the matched heading", async () => {
    const modal = new VaultSearchModal(real(app), { search: async () => [] }, new ObsidianNoteStore(real(app).vault));
    modal.onChooseSuggestion(result({ sections: [section({ heading: "Flying in wind", line: 3 })] }), new KeyboardEvent("keydown"));
    await Promise.resolve();
    expect(app.workspace.openedLinks.map((l) => [l.linktext, l.newLeaf])).toEqual([["Notes/Kites.md#Flying in wind", false]]);
  });

  it("opens in a new tab when a modifier is held", async () => {
    const modal = new VaultSearchModal(real(app), { search: async () => [] }, new ObsidianNoteStore(real(app).vault));
    modal.onChooseSuggestion(result(), new KeyboardEvent("keydown", { ctrlKey: true }));
    await Promise.resolve();
    expect(app.workspace.openedLinks).toEqual([expect.objectContaining({ linktext: "Notes/Kites.md", newLeaf: "tab" })]);
  });

  it("opens by line when the heading cannot be written as a link", async () => {
    const file = app.vault.seed("Notes/Kites.md", "# Kites\n\n## C# [draft] | notes\n");
    const modal = new VaultSearchModal(real(app), { search: async () => [] }, new ObsidianNoteStore(real(app).vault));
    modal.onChooseSuggestion(result({ sections: [section({ heading: "C# [draft] | notes", line: 3 })] }), new KeyboardEvent("keydown"));
    await Promise.resolve();
    expect(app.workspace.openedLinks).toEqual([]);
    const opened = app.workspace.leaves.flatMap((l) => l.opened);
    expect(opened).toEqual([{ file, state: { eState: { line: 2 } } }]);
  });
});

describe("snippet highlights", () => {
  it("sorts, clamps and joins overlapping spans and drops empty ones", () => {
    expect(mergeHighlights([[8, 12], [0, 3], [2, 5], [20, 40], [6, 6]], 25)).toEqual([[0, 5], [8, 12], [20, 25]]);
  });

  it("renders text around, between and after the marks", () => {
    const el = createDiv();
    renderSnippet(el, "a tar b tar c", [[2, 5], [8, 11]]);
    expect(el.textContent).toBe("a tar b tar c");
    expect(el.querySelectorAll(".vault-research-match")).toHaveLength(2);
    expect(el.childNodes).toHaveLength(5);
  });
});
