// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, notices, openModals, Platform, Vault } from "../stubs/obsidian";
import type { SearchResult, SectionHit } from "../../src/index/types";
import type { DialLevel, DialResult } from "../../src/index/dial/dial-types";
import { VaultSearch } from "../../src/index/dial/vault-search";
import { VaultIndex } from "../../src/index/vault-index";
import { ObsidianNoteStore } from "../../src/plugin/obsidian-note-store";
import { BY_MEANING, KEY_IN_QUERY, mergeHighlights, renderSnippet, runningWords, searchKeys, VaultSearchModal } from "../../src/ui/search-modal";
import { dialResponse, dialResult, engineDialHost, FakeDialHost, readinessUpTo, unavailableNotice } from "./dial/fake-dial-host";

/** The stand-in as the type the code under test expects. */
const real = (app: App) => app as unknown as ObsidianApp;

/** No pause after typing: the tests type one query at a time. */
const NO_PAUSE: Record<DialLevel, number> = { 1: 0, 2: 0, 3: 0, 4: 0 };

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

function lexical(over: Partial<SearchResult> = {}): SearchResult {
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

/** A level-1 dial result whose lexical half is `over`, as the engine builds it. */
function result(over: Partial<SearchResult> = {}): DialResult {
  const found = lexical(over);
  const best = found.sections[0];
  return dialResult({
    path: found.path,
    key: found.path,
    title: found.title,
    score: found.score,
    lexical: found,
    section: best ? { from: "lexical", unit: "section", headingPath: best.headingPath.length > 0 ? best.headingPath : best.heading ? [best.heading] : [], line: best.line, start: best.start, end: best.end, snippet: best.snippet } : null,
  });
}

/** What the modal's live region holds: what a screen reader reads out. */
function spoken(modal: VaultSearchModal): string {
  return modal.modalEl.querySelector("[role=status]")?.textContent ?? "";
}

async function shown(modal: VaultSearchModal): Promise<HTMLElement[]> {
  return vi.waitFor(() => {
    const items = [...modal.resultContainerEl.querySelectorAll<HTMLElement>(".suggestion-item")];
    if (items.length === 0) throw new Error("no suggestions yet");
    return items;
  });
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

    const modal = new VaultSearchModal(real(app), engineDialHost(new VaultSearch({ index, notes: store })), { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "kite");
    const [first] = await shown(modal);
    expect(first.querySelector(".vault-research-search-result-title")?.textContent).toBe("Kites");
    expect(first.querySelector(".vault-research-search-result-path")?.textContent).toBe("Hobbies/Kites.md");
    const marks = [...first.querySelectorAll(".vault-research-match")].map((m) => m.textContent?.toLowerCase());
    expect(marks.length).toBeGreaterThan(0);
    expect(marks.every((m) => m?.startsWith("kite"))).toBe(true);
  });

  it("asks the dial for at most 20 notes at the remembered level and nothing for an empty query", async () => {
    const host = new FakeDialHost();
    host.levels["search-modal"] = 3;
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    expect(await modal.getSuggestions("   ")).toEqual([]);
    await modal.getSuggestions("tar extract");
    expect(host.requests.map((r) => ({ query: r.query, limit: r.limit, level: r.level, surface: r.surface }))).toEqual([{ query: "tar extract", limit: 20, level: 3, surface: "search-modal" }]);
  });

  it("says on its status line when the level chosen becomes ready while the modal is open", () => {
    const host = new FakeDialHost();
    host.levels["search-modal"] = 2;
    host.ready = readinessUpTo(1, "no_vectors");
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    host.ready = readinessUpTo(3);
    host.changed();
    expect(modal.modalEl.querySelector(".vault-research-search-status")?.textContent).toBe("Hybrid is ready.");
    expect(spoken(modal)).toBe("Hybrid is ready.");
  });

  it("says how a search ended once: the same words after the next keystroke are not read out again", async () => {
    const close = dialResult({ path: "Descaling.md", key: "Descaling.md", title: "Descaling", score: 0.3 });
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, results: r.loose ? [close] : [] }));
    host.ready = readinessUpTo(1);
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    const live = modal.modalEl.querySelector<HTMLElement>("[role=status]")!;
    const said: string[] = [];
    new MutationObserver(() => said.push(live.textContent ?? "")).observe(live, { childList: true, characterData: true, subtree: true });
    for (const query of ["desc", "desca", "descal"]) {
      type(modal, query);
      await vi.waitFor(() => expect(host.requests.filter((r) => r.query === query && r.loose)).toHaveLength(1));
      await shown(modal);
    }
    await vi.waitFor(() => expect(said.length).toBeGreaterThan(0));
    expect(said).toEqual([
      "No note contains these words. The 1 closest by spelling, with their low scores. Finding the closest notes by meaning needs Hybrid, which is not ready (no embedding model is set in settings).",
    ]);
    // The line the eye reads still says it, and is no live region of its own.
    expect(modal.modalEl.querySelector(".vault-research-search-status")?.getAttribute("role")).toBeNull();
  });

  it("says aloud a search that found nothing to list, and one that failed, not only in the empty list", async () => {
    let fail = false;
    const host = new FakeDialHost((r) => {
      if (fail) throw new Error("index is being rebuilt");
      return dialResponse({ query: r.query, results: [] });
    });
    host.ready = readinessUpTo(1);
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "descale espresso");
    await vi.waitFor(() => expect(spoken(modal)).toBe("No note contains these words. Finding the closest notes by meaning needs Hybrid, which is not ready (no embedding model is set in settings)."));
    fail = true;
    type(modal, "descale");
    await vi.waitFor(() => expect(spoken(modal)).toBe("Search failed: index is being rebuilt"));
  });

  it("says how many notes a search found, with the line above the list: a search that lists notes is heard to end", async () => {
    const kites = dialResult({ path: "Hobbies/Kites.md", key: "Hobbies/Kites.md", title: "Kites" });
    const boats = dialResult({ path: "Hobbies/Boats.md", key: "Hobbies/Boats.md", title: "Boats", score: 0.5 });
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: r.level, ranLevel: 1, results: r.query === "kite" ? [kites] : [kites, boats], notices: r.level === 1 ? [] : [unavailableNotice(2, "no_embedder")] }));
    host.ready = readinessUpTo(1);
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "kite");
    await vi.waitFor(() => expect(spoken(modal)).toBe("1 note found."));
    type(modal, "wind");
    await vi.waitFor(() => expect(spoken(modal)).toBe("2 notes found."));
    // The dial moved to a level that cannot run: the count, then why.
    modal.modalEl.querySelector<HTMLInputElement>(".vault-research-dial-input[value='2']")!.click();
    await vi.waitFor(() => expect(spoken(modal)).toBe("2 notes found. Ran at Lexical instead of Hybrid. No embedding model is set, so this search used words only (level 1)."));
  });

  it("says what went wrong when the search fails", async () => {
    const host = new FakeDialHost(() => {
      throw new Error("index is being rebuilt");
    });
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "x");
    await vi.waitFor(() => expect(modal.resultContainerEl.textContent).toContain("index is being rebuilt"));
  });

  it("renders the best section's heading path and a snippet whose markup stays text", () => {
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
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

  it("sets the query, and each result's title, path, heading and snippet, in the direction of their own words (Arabic, Hebrew)", () => {
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    expect(modal.inputEl.getAttribute("dir")).toBe("auto");
    const el = createDiv();
    modal.renderSuggestion(result({ sections: [section({ heading: "Extract", headingPath: ["Extract"], snippet: "use tar", highlights: [] })] }), el);
    const parts = [".vault-research-search-result-title", ".vault-research-search-result-path", ".vault-research-search-result-heading", ".vault-research-search-result-snippet"];
    expect(parts.map((p) => el.querySelector(p)?.getAttribute("dir"))).toEqual(["auto", "auto", "auto", "auto"]);
  });

  it("says a note the vault's language found without any of the query's words was found by meaning; not one that has some", () => {
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    const explained = (matchedTerms: string[], vaultLanguage?: { rank: number; similarity: number }) => {
      const el = createDiv();
      const explanation = { ...lexical().explanation, matchedTerms, missingTerms: ["pelican"].filter((w) => !matchedTerms.includes(w)), ...(vaultLanguage ? { vaultLanguage } : {}) };
      modal.renderSuggestion(result({ score: 0, explanation }), el);
      return el.querySelector(".vault-research-search-result-closeness")?.textContent ?? null;
    };
    expect(explained([], { rank: 3, similarity: 0.71 })).toBe(BY_MEANING);
    expect(explained(["pelican"], { rank: 1, similarity: 0.9 })).toBeNull();
    expect(explained([])).toBeNull();
  });

  it("opens the note at the matched heading", async () => {
    app.vault.seed("Notes/Kites.md", "# Kites\n\n## Flying in wind\n");
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    modal.onChooseSuggestion(result({ sections: [section({ heading: "Flying in wind", line: 3 })] }), new KeyboardEvent("keydown"));
    await Promise.resolve();
    expect(app.workspace.openedLinks.map((l) => [l.linktext, l.newLeaf])).toEqual([["Notes/Kites.md#Flying in wind", false]]);
  });

  it("opens in a new tab when a modifier is held", async () => {
    app.vault.seed("Notes/Kites.md", "# Kites\n");
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    modal.onChooseSuggestion(result(), new KeyboardEvent("keydown", { ctrlKey: true }));
    await Promise.resolve();
    expect(app.workspace.openedLinks).toEqual([expect.objectContaining({ linktext: "Notes/Kites.md", newLeaf: "tab" })]);
  });

  it("Ctrl ↵ on the chosen result opens it in a new tab, as its instructions say (the app's list chooses on a plain Enter only)", async () => {
    const vault = app.vault;
    vault.seed("Hobbies/Kites.md", "# Kites\n\nA delta kite flies in wind.\n");
    vault.seed("Hobbies/Boats.md", "# Boats\n\nA kite can pull a boat.\n");
    const store = new ObsidianNoteStore(real(app).vault);
    const index = new VaultIndex();
    await index.sync(store, null);
    const modal = new VaultSearchModal(real(app), engineDialHost(new VaultSearch({ index, notes: store })), { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "kite");
    const items = await shown(modal);
    expect(items.length).toBe(2);
    modal.inputEl.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    const second = items[1].querySelector(".vault-research-search-result-path")?.textContent;
    modal.inputEl.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", ctrlKey: true, bubbles: true }));
    await vi.waitFor(() => expect(app.workspace.openedLinks.map((l) => [l.linktext.split("#")[0], l.newLeaf])).toEqual([[second, "tab"]]));
  });

  it("never makes a note that is gone since it was found: it says so instead", async () => {
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    modal.onChooseSuggestion(result({ sections: [section({ heading: "Flying in wind", line: 3 })] }), new KeyboardEvent("keydown"));
    await Promise.resolve();
    expect(app.workspace.openedLinks).toEqual([]);
    expect(app.workspace.leaves.flatMap((l) => l.opened)).toEqual([]);
    expect(notices.at(-1)?.message).toBe("Kites is no longer in your vault: it was moved or deleted.");
  });

  it("opens a note whose name a link would misread (a # in it) as that note, not another", async () => {
    const file = app.vault.seed("Notes/C# tips.md", "# C# tips\n");
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    modal.onChooseSuggestion(result({ path: "Notes/C# tips.md", title: "C# tips" }), new KeyboardEvent("keydown"));
    await Promise.resolve();
    expect(app.workspace.openedLinks).toEqual([]);
    expect(app.workspace.leaves.flatMap((l) => l.opened)).toEqual([{ file, state: undefined }]);
  });

  it("opens by line when the heading cannot be written as a link", async () => {
    const file = app.vault.seed("Notes/Kites.md", "# Kites\n\n## C# [draft] | notes\n");
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    modal.onChooseSuggestion(result({ sections: [section({ heading: "C# [draft] | notes", line: 3 })] }), new KeyboardEvent("keydown"));
    await Promise.resolve();
    expect(app.workspace.openedLinks).toEqual([]);
    const opened = app.workspace.leaves.flatMap((l) => l.opened);
    expect(opened).toEqual([{ file, state: { eState: { line: 2 } } }]);
  });
});

describe("the dial in the search modal", () => {
  let app: App;
  beforeEach(() => {
    app = new App({ vault: new Vault() });
    openModals.length = 0;
  });
  afterEach(() => openModals.forEach((m) => m.close()));

  const kites = dialResult({ path: "Hobbies/Kites.md", key: "Hobbies/Kites.md", title: "Kites" });

  it("moving the dial searches the same query again at the new level and remembers it for this modal", async () => {
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: r.level, ranLevel: r.level, results: [kites] }));
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "kite");
    await shown(modal);
    const hybrid = modal.modalEl.querySelector<HTMLInputElement>(".vault-research-dial-input[value='2']")!;
    hybrid.checked = true;
    hybrid.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(host.requests.map((r) => r.level)).toEqual([1, 2]));
    expect(host.requests[1].query).toBe("kite");
    expect(host.savedLevels).toEqual([["search-modal", 2]]);
  });

  it("while a slow level runs, its label says what it is doing; the line clears when it is done", async () => {
    let finish!: () => void;
    const host = new FakeDialHost((r) => new Promise((resolve) => (finish = () => resolve(dialResponse({ query: r.query, level: 4, ranLevel: 4, results: [kites] })))));
    host.levels["search-modal"] = 4;
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "kite");
    const status = modal.modalEl.querySelector<HTMLElement>(".vault-research-search-status")!;
    await vi.waitFor(() => expect(status.textContent).toBe("Rerank: embedding the query, then reranking…"));
    expect(modal.resultContainerEl.getAttribute("aria-busy")).toBe("true");
    // Seen, not spoken: said after every pause in typing, it would talk over the user's own typing.
    expect(spoken(modal)).toBe("");
    finish();
    await shown(modal);
    expect(status.textContent).toBe("");
    expect(modal.resultContainerEl.getAttribute("aria-busy")).toBe("false");
  });

  it("names a slow level by the level that will run, and says nothing for level 1", () => {
    expect(runningWords(1)).toBe("");
    expect(runningWords(2)).toBe("Hybrid: embedding the query…");
    expect(runningWords(3)).toBe("Multi-field: embedding the query…");
    expect(runningWords(4)).toBe("Rerank: embedding the query, then reranking…");
  });

  it("says in words which level ran when it was not the one asked for, and why", async () => {
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: 3, ranLevel: 1, results: [kites], notices: [unavailableNotice(3, "no_embedder")] }));
    host.levels["search-modal"] = 3;
    host.ready = readinessUpTo(1);
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "kite");
    await shown(modal);
    expect(modal.modalEl.querySelector(".vault-research-search-status")?.textContent).toBe(
      "Ran at Lexical instead of Multi-field. No embedding model is set, so this search used words only (level 1).",
    );
  });

  it("says the rerank failed and that level 3's order stands", async () => {
    const notice = { kind: "rerank_failed" as const, reason: "timeout" as const, message: "stand-in did not reorder the results within 20 s; level 3's order stands." };
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: 4, ranLevel: 3, results: [kites], notices: [notice] }));
    host.levels["search-modal"] = 4;
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "kite");
    await shown(modal);
    expect(modal.modalEl.querySelector(".vault-research-search-status")?.textContent).toBe(
      "Ran at Multi-field instead of Rerank. stand-in did not reorder the results within 20 s; level 3's order stands.",
    );
  });

  it("reads two notices as two sentences when one comes without a full stop of its own", async () => {
    const notices = [
      { kind: "rerank_failed" as const, reason: "model_error" as const, message: "stand-in could not reorder the results: Too many requests" },
      { kind: "rerank_cached" as const, message: "Reordered by stand-in earlier (kept for a few minutes)." },
    ];
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: 4, ranLevel: 3, results: [kites], notices }));
    host.levels["search-modal"] = 4;
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "kite");
    await shown(modal);
    expect(modal.modalEl.querySelector(".vault-research-search-status")?.textContent).toBe(
      "Ran at Multi-field instead of Rerank. stand-in could not reorder the results: Too many requests. Reordered by stand-in earlier (kept for a few minutes).",
    );
  });

  it("names the section that matched by meaning (level 3) and shows its words unmarked", () => {
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    const el = createDiv();
    modal.renderSuggestion(
      dialResult({ section: { from: "section_vector", unit: "section", headingPath: ["Garage diary", "Tuesday"], line: 9, start: 0, end: 10, snippet: "Spent the afternoon fixing the vehicle" } }),
      el,
    );
    expect(el.querySelector(".vault-research-search-result-heading")?.textContent).toBe("Matched section: Garage diary › Tuesday");
    expect(el.querySelector(".vault-research-search-result-snippet")?.textContent).toBe("Spent the afternoon fixing the vehicle");
    expect(el.querySelectorAll(".vault-research-match")).toHaveLength(0);
  });

  it("behind Show scores: each lane's rank and score, the fused score and the rerank's move; the choice is remembered", async () => {
    const host = new FakeDialHost();
    const modal = new VaultSearchModal(real(app), host);
    const el = createDiv();
    modal.renderSuggestion(
      dialResult({
        score: 0.0325,
        explanation: {
          lanes: [
            { lane: "lexical", rank: 2, contribution: 1 / 62, score: 3.4127 },
            { lane: "note_vector", rank: 1, contribution: 1 / 61, score: 0.8213 },
            { lane: "section_vector", rank: 3, contribution: 1 / 63, score: 0.7712 },
          ],
          rerank: { before: 5, after: 2, model: "stand-in" },
        },
      }),
      el,
    );
    expect([...el.querySelectorAll(".vault-research-search-scores li")].map((li) => li.textContent)).toEqual([
      "Words: 2nd · score 3.41",
      "Whole note by meaning: 1st · similarity 0.82",
      "Closest part by meaning: 3rd · similarity 0.77",
      "Fused (RRF): 0.0325",
      "Rerank by stand-in: moved up 3 (5th → 2nd)",
    ]);
    const toggle = modal.modalEl.querySelector<HTMLInputElement>(".vault-research-search-scores-toggle input")!;
    expect(modal.modalEl.querySelector(".vault-research-search-scores-toggle")?.textContent).toBe("Show scores");
    expect(modal.modalEl.hasClass("is-showing-scores")).toBe(false);
    toggle.checked = true;
    toggle.dispatchEvent(new Event("change"));
    expect(modal.modalEl.hasClass("is-showing-scores")).toBe(true);
    expect(host.savedScores).toEqual([true]);
  });

  it("starts with scores shown when the user left them on", () => {
    const host = new FakeDialHost();
    host.scores = true;
    const modal = new VaultSearchModal(real(app), host);
    expect(modal.modalEl.hasClass("is-showing-scores")).toBe(true);
    expect(modal.modalEl.querySelector<HTMLInputElement>(".vault-research-search-scores-toggle input")!.checked).toBe(true);
  });

  it("with no word in any note, offers the three closest notes by meaning, and shows them with their low scores when asked", async () => {
    const near = (path: string, similarity: number) =>
      dialResult({ path, key: path, title: path.replace(/\.md$/, ""), explanation: { lanes: [{ lane: "note_vector", rank: 1, contribution: 1 / 61, score: similarity }] } });
    const host = new FakeDialHost((r) =>
      r.level === 1
        ? dialResponse({ query: r.query, results: [], logId: "log-words" })
        : dialResponse({ query: r.query, level: r.level, ranLevel: r.level, logId: "log-meaning", results: [near("Soup.md", 0.214), near("Bread.md", 0.19), near("Cats.md", 0.12), near("Dogs.md", 0.1)] }),
    );
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "descale espresso");
    // Level 1 asks no model: the closest notes by meaning wait for the user's click.
    const offer = await vi.waitFor(() => {
      const button = modal.modalEl.querySelector<HTMLButtonElement>(".vault-research-search-offer-button");
      if (!button || button.closest<HTMLElement>(".vault-research-search-offer")!.style.display === "none") throw new Error("no offer yet");
      return button;
    });
    expect(modal.resultContainerEl.textContent).toBe("No note contains these words.");
    expect(offer.textContent).toBe("Show the 3 closest notes by meaning");
    expect(modal.modalEl.querySelector(".vault-research-search-offer-note")?.textContent).toBe("Multi-field: the query goes to your embedding model.");
    // The closest by spelling were looked for at once (level 1: no model, no network); none here.
    expect(host.requests.map((r) => [r.level, r.limit, r.loose ?? false])).toEqual([[1, 20, false], [1, 3, true]]);
    offer.click();
    const items = await shown(modal);
    // The word search is not run again; the meaning search is.
    expect(host.requests.map((r) => [r.level, r.limit])).toEqual([[1, 20], [1, 3], [3, 3]]);
    expect(modal.modalEl.querySelector<HTMLElement>(".vault-research-search-offer")!.style.display).toBe("none");
    expect(items.map((i) => i.querySelector(".vault-research-search-result-title")?.textContent)).toEqual(["Soup", "Bread", "Cats"]);
    expect(items.map((i) => i.querySelector(".vault-research-search-result-closeness")?.textContent)).toEqual([
      "Not a match · similarity 0.21",
      "Not a match · similarity 0.19",
      "Not a match · similarity 0.12",
    ]);
    expect(modal.modalEl.querySelector(".vault-research-search-status")?.textContent).toBe("No note contains these words. The 3 closest by meaning (Multi-field), with their low scores:");
    items[1].click();
    await vi.waitFor(() => expect(host.clicks).toEqual([{ logId: "log-meaning", key: "Bread.md", rank: 2 }]));
  });

  it("asked for the closest notes by meaning when the embedding server fails, says it failed and why, not that no note is close", async () => {
    const failed = "The embedding server at http://127.0.0.1:11434 did not answer. Searched by words only (level 1).";
    const host = new FakeDialHost((r) =>
      r.level === 1
        ? dialResponse({ query: r.query, results: [] })
        : dialResponse({ query: r.query, level: r.level, ranLevel: 1, results: [], notices: [{ kind: "embedding_failed", wanted: r.level, ran: 1, errorKind: "network", message: failed }] }),
    );
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "descale espresso");
    const offer = await vi.waitFor(() => {
      const button = modal.modalEl.querySelector<HTMLButtonElement>(".vault-research-search-offer-button");
      if (!button || button.closest<HTMLElement>(".vault-research-search-offer")!.style.display === "none") throw new Error("no offer yet");
      return button;
    });
    offer.click();
    await vi.waitFor(() => expect(host.requests.map((r) => r.level)).toEqual([1, 1, 3]));
    const status = modal.modalEl.querySelector<HTMLElement>(".vault-research-search-status")!;
    await vi.waitFor(() => expect(status.textContent).toBe(`No note contains these words. The closest notes by meaning could not be found: ${failed}`));
    expect(spoken(modal)).toContain(failed);
  });

  it("asked for the closest notes by meaning, says each failure as a sentence of its own, and what the empty list says after them", async () => {
    const failed = "Ollama at http://127.0.0.1:11434 is rate limiting requests (HTTP 429): slow down";
    const host = new FakeDialHost((r) =>
      r.level === 1
        ? dialResponse({ query: r.query, results: [] })
        : dialResponse({
            query: r.query,
            level: r.level,
            ranLevel: 1,
            results: [],
            notices: [
              { kind: "embedding_failed", wanted: r.level, ran: 1, errorKind: "rate_limited", message: failed },
              { kind: "query_cut", message: "The query is 2,400 characters long; only its first 2,000 were read." },
            ],
          }),
    );
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "descale espresso");
    const offer = await vi.waitFor(() => {
      const button = modal.modalEl.querySelector<HTMLButtonElement>(".vault-research-search-offer-button");
      if (!button || button.closest<HTMLElement>(".vault-research-search-offer")!.style.display === "none") throw new Error("no offer yet");
      return button;
    });
    offer.click();
    const status = modal.modalEl.querySelector<HTMLElement>(".vault-research-search-status")!;
    const said = `No note contains these words. The closest notes by meaning could not be found: ${failed}. The query is 2,400 characters long; only its first 2,000 were read.`;
    await vi.waitFor(() => expect(status.textContent).toBe(said));
    await vi.waitFor(() => expect(spoken(modal)).toBe(`${said} No notes match.`));
  });

  it("asked at Hybrid when the embedding server fails and no word matches, still says Hybrid did not run and why beside the closest by spelling", async () => {
    const failed = "The embedding server at http://127.0.0.1:11434 did not answer. Searched by words only (level 1).";
    const spelled = dialResult({ path: "Espresso machine.md", key: "Espresso machine.md", title: "Espresso machine", score: 0.42 });
    const host = new FakeDialHost((r) =>
      r.loose
        ? dialResponse({ query: r.query, results: [spelled] })
        : dialResponse({ query: r.query, level: r.level, ranLevel: 1, results: [], notices: [{ kind: "embedding_failed", wanted: r.level, ran: 1, errorKind: "network", message: failed }] }),
    );
    host.levels["search-modal"] = 2;
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "expresso descalling");
    await shown(modal);
    const status = modal.modalEl.querySelector<HTMLElement>(".vault-research-search-status")!;
    expect(status.textContent).toContain("Ran at Lexical instead of Hybrid.");
    expect(status.textContent).toContain(failed);
    expect(status.textContent).toContain("The 1 closest by spelling");
  });

  it("with no word in any note and no vectors, says what finding the closest notes needs", async () => {
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, results: [] }));
    host.ready = readinessUpTo(1);
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "descale espresso");
    await vi.waitFor(() => expect(modal.resultContainerEl.textContent).toBe("No note contains these words. Finding the closest notes by meaning needs Hybrid, which is not ready (no embedding model is set in settings)."));
    // The word search, then the closest by spelling (none).
    expect(host.requests.map((r) => r.loose ?? false)).toEqual([false, true]);
    expect(modal.modalEl.querySelector<HTMLElement>(".vault-research-search-offer")!.style.display).toBe("none");
  });

  it("with no word in any note, shows the three closest by spelling at once, with their low scores, as no match", async () => {
    const spelled = (path: string, score: number) => dialResult({ path, key: path, title: path.replace(/\.md$/, ""), score });
    const host = new FakeDialHost((r) =>
      dialResponse({ query: r.query, results: r.loose ? [spelled("Espresso machine.md", 0.42), spelled("Descaling.md", 0.31), spelled("Kettle.md", 0.2), spelled("Tea.md", 0.1)] : [] }),
    );
    host.ready = readinessUpTo(1);
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "expresso descalling");
    const items = await shown(modal);
    expect(items.map((i) => i.querySelector(".vault-research-search-result-closeness")?.textContent)).toEqual([
      "Not a match · spelled alike, score 0.42",
      "Not a match · spelled alike, score 0.31",
      "Not a match · spelled alike, score 0.20",
    ]);
    expect(modal.modalEl.querySelector(".vault-research-search-status")?.textContent).toMatch(/^No note contains these words\. The 3 closest by spelling, with their low scores\. Finding the closest notes by meaning needs Hybrid/);
    expect(host.requests.map((r) => [r.level, r.limit, r.loose ?? false])).toEqual([[1, 20, false], [1, 3, true]]);
  });

  it("opening a result records the click-through against the search it came from", async () => {
    const boats = dialResult({ path: "Hobbies/Boats.md", key: "Hobbies/Boats.md", title: "Boats" });
    app.vault.seed("Hobbies/Boats.md", "# Boats\n");
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, results: [kites, boats], logId: "log-7" }));
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "wind");
    const items = await shown(modal);
    items[1].click();
    await vi.waitFor(() => expect(host.clicks).toEqual([{ logId: "log-7", key: "Hobbies/Boats.md", rank: 2 }]));
    expect(app.workspace.openedLinks.map((l) => l.linktext)).toEqual(["Hobbies/Boats.md"]);
  });

  it("a newer keystroke wins: the older search is cancelled and its answer not shown", async () => {
    const host = new FakeDialHost(
      (r) =>
        new Promise((resolve) => {
          const answer = () => resolve(dialResponse({ query: r.query, results: [dialResult({ title: r.query })] }));
          if (r.query === "ki") r.signal?.addEventListener("abort", answer);
          else answer();
        }),
    );
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "ki");
    await vi.waitFor(() => expect(host.requests).toHaveLength(1));
    type(modal, "kite");
    await vi.waitFor(() => expect(host.requests[0].signal?.aborted).toBe(true));
    const items = await shown(modal);
    expect(items.map((i) => i.querySelector(".vault-research-search-result-title")?.textContent)).toEqual(["kite"]);
  });

  it("a search overtaken while in its typing pause does not empty the list the newer one showed (Rerank's pause outlasts Lexical's)", async () => {
    vi.useFakeTimers();
    try {
      const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: r.level, ranLevel: r.level, results: [kites] }));
      host.levels["search-modal"] = 4;
      const modal = new VaultSearchModal(real(app), host, { typingPauseMs: { 1: 120, 2: 250, 3: 250, 4: 600 } });
      modal.open();
      type(modal, "kite");
      await vi.advanceTimersByTimeAsync(10);
      const lexical = modal.modalEl.querySelector<HTMLInputElement>(".vault-research-dial-input[value='1']")!;
      lexical.checked = true;
      lexical.dispatchEvent(new Event("change"));
      await vi.advanceTimersByTimeAsync(200);
      expect(host.requests.map((r) => r.level)).toEqual([1]);
      expect(modal.resultContainerEl.querySelectorAll(".suggestion-item")).toHaveLength(1);
      // The Rerank search's pause ends: it was overtaken, and must not replace the list with nothing.
      await vi.advanceTimersByTimeAsync(1_000);
      expect(host.requests.map((r) => r.level)).toEqual([1]);
      expect(modal.resultContainerEl.querySelectorAll(".suggestion-item")).toHaveLength(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a key pasted into the query by mistake is not searched: it reaches no model and no query log line, and the modal says why", async () => {
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: r.level, ranLevel: r.level, results: [kites] }));
    host.levels["search-modal"] = 2;
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    type(modal, "kites sk-ant-api03-Zq8x2Lm4Vt7Rp1Ws9Ky3Nb6");
    await vi.waitFor(() => expect(modal.resultContainerEl.textContent).toBe(KEY_IN_QUERY));
    expect(host.requests).toEqual([]);
    expect(spoken(modal)).toBe(KEY_IN_QUERY);
    // The key gone, the words are searched as ever.
    type(modal, "kites");
    await shown(modal);
    expect(host.requests.map((r) => r.query)).toEqual(["kites"]);
  });

  it("dismissed while the typing pause runs, searches nothing: no model, no log line for a query the user let go", async () => {
    vi.useFakeTimers();
    try {
      const host = new FakeDialHost();
      host.levels["search-modal"] = 4;
      const modal = new VaultSearchModal(real(app), host, { typingPauseMs: { 1: 120, 2: 250, 3: 250, 4: 600 } });
      modal.open();
      type(modal, "salary negotiation notes");
      modal.close();
      await vi.advanceTimersByTimeAsync(1_000);
      expect(host.requests).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("stops listening to the host when it closes", () => {
    const host = new FakeDialHost();
    const modal = new VaultSearchModal(real(app), host);
    modal.open();
    expect(host.listenerCount()).toBe(1);
    modal.close();
    expect(host.listenerCount()).toBe(0);
  });
});

describe("the search modal for a screen reader", () => {
  let app: App;
  beforeEach(() => {
    app = new App({ vault: new Vault() });
    openModals.length = 0;
  });
  afterEach(() => {
    openModals.forEach((m) => m.close());
    Platform.isMacOS = false;
  });

  /** The words an element's `aria-describedby` points at. */
  function describedBy(el: Element): string {
    const ids = (el.getAttribute("aria-describedby") ?? "").split(" ").filter((id) => id !== "");
    return ids.map((id) => el.ownerDocument.getElementById(id)?.textContent ?? `(no #${id})`).join(" / ");
  }

  it("the query box is a combobox over a listbox of the notes found, and ↓ moves the option it names as active", async () => {
    const kites = dialResult({ path: "Hobbies/Kites.md", key: "Hobbies/Kites.md", title: "Kites" });
    const boats = dialResult({ path: "Hobbies/Boats.md", key: "Hobbies/Boats.md", title: "Boats" });
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, results: [kites, boats] }));
    const modal = new VaultSearchModal(real(app), host, { typingPauseMs: NO_PAUSE });
    modal.open();
    const input = modal.inputEl;
    expect(input.getAttribute("role")).toBe("combobox");
    expect(input.getAttribute("aria-label")).toBe("Search your notes");
    expect(describedBy(input)).toBe(searchKeys());
    type(modal, "wind");
    const items = await shown(modal);
    await vi.waitFor(() => expect(input.getAttribute("aria-activedescendant")).toBe(items[0].id));
    const list = document.getElementById(input.getAttribute("aria-controls")!)!;
    expect(list).toBe(modal.resultContainerEl);
    expect(list.getAttribute("role")).toBe("listbox");
    expect(list.getAttribute("aria-label")).toBe("Notes found");
    expect(items.map((i) => i.getAttribute("role"))).toEqual(["option", "option"]);
    expect(input.getAttribute("aria-expanded")).toBe("true");
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowDown", bubbles: true }));
    await vi.waitFor(() => expect(input.getAttribute("aria-activedescendant")).toBe(items[1].id));
    expect(items.map((i) => i.getAttribute("aria-selected"))).toEqual([null, "true"]);
  });

  it("on a Mac says ⌘ ↵ opens a note in a new tab, the key the app reads as Mod there, not Ctrl ↵", () => {
    Platform.isMacOS = true;
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    const shownKeys = [...modal.modalEl.querySelectorAll(".prompt-instruction")].map((row) => row.textContent);
    expect(shownKeys).toContain("⌘ ↵to open in a new tab");
    expect(searchKeys()).toContain("Cmd Enter in a new tab");
    Platform.isMacOS = false;
    expect(searchKeys()).toContain("Ctrl Enter in a new tab");
  });

  it("stops following the list once closed", async () => {
    const modal = new VaultSearchModal(real(app), new FakeDialHost());
    modal.open();
    modal.close();
    modal.resultContainerEl.createDiv("suggestion-item is-selected");
    await new Promise((resolve) => window.setTimeout(resolve, 0));
    expect(modal.inputEl.hasAttribute("aria-activedescendant")).toBe(false);
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

  it("keeps a block's line break, and puts the ellipsis of blocks left out above in front of the first block, not on a line of its own", () => {
    const el = createDiv();
    const snippet = "…\nQuestion Automerge Yjs\nData model JSON-like";
    renderSnippet(el, snippet, [at(snippet, "Automerge"), at(snippet, "Yjs")]);
    expect(el.textContent).toBe("… Question Automerge Yjs\nData model JSON-like");
    expect([...el.querySelectorAll(".vault-research-match")].map((m) => m.textContent)).toEqual(["Automerge", "Yjs"]);
  });
});
