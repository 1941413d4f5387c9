// @vitest-environment happy-dom
// The status bar items: the index's reads "N of M notes" while a build knows its total, and the
// embedding job's shows its progress in words (done / total, rate, ETA) while it runs, paused or
// stopped, hides when done, and a click pauses or resumes.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { App as ObsidianApp } from "obsidian";
import { App, openModals } from "../stubs/obsidian";
import type { EmbeddingProgress } from "../../src/index/embeddings/embedding-job";
import type { IndexStatus } from "../../src/index/types";
import { EmbeddingStatusBar, IndexProblemsModal, IndexStatusBar } from "../../src/ui/index-status";
import { indexIssues } from "../../src/index/index-status-text";

afterEach(() => {
  vi.restoreAllMocks();
  for (const modal of [...openModals]) modal.close();
});

const progress = (change: Partial<EmbeddingProgress>): EmbeddingProgress => ({
  state: "running",
  notesDone: 0,
  notesTotal: 0,
  notesUnchanged: 0,
  notesRechecked: 0,
  checksLeft: 0,
  notesUnreadable: 0,
  unitsDone: 0,
  notesPerSecond: null,
  etaMs: null,
  resets: [],
  ...change,
});

describe("IndexStatusBar", () => {
  it("reads N of M with the total, and keeps the problem count", () => {
    const el = createDiv();
    const bar = new IndexStatusBar(el, () => {});
    const building: IndexStatus = { notes: 1200, lastUpdated: null, state: "building", problems: [] };
    bar.render(building, [], 9282);
    expect(el.textContent).toBe("Indexing… 1,200 of 9,282 notes");
    bar.render(building, [{ message: "The index could not be built" }], 9282);
    expect(el.textContent).toBe("Indexing… 1,200 of 9,282 notes · 1 problem");
    bar.render(building, [], null);
    expect(el.textContent).toBe("Indexing… 1,200 notes");
    bar.render({ ...building, state: "ready" }, [], 9282);
    expect(el.textContent).toBe("1,200 notes indexed");
  });

  it("is named by what it shows, then its tooltip: a screen reader reads the aria-label in place of the text", () => {
    const el = createDiv();
    const bar = new IndexStatusBar(el, () => {});
    bar.render({ notes: 1200, lastUpdated: null, state: "building", problems: [] }, [{ message: "The index could not be built" }], 9282);
    expect(el.getAttribute("aria-label")).toMatch(/^Indexing… 1,200 of 9,282 notes · 1 problem\. \S/);
  });
});

describe("EmbeddingStatusBar", () => {
  it("is hidden before any run and once a run is done", () => {
    const el = createDiv();
    const bar = new EmbeddingStatusBar(el, () => {});
    expect(el.style.display).toBe("none");
    bar.render(progress({ state: "done", notesDone: 3, notesTotal: 3 }));
    expect(el.style.display).toBe("none");
  });

  it("shows notes done of total, the rate and the time left while running; a click pauses", () => {
    const el = createDiv();
    const clicked = vi.fn();
    const bar = new EmbeddingStatusBar(el, clicked);
    bar.render(progress({ notesDone: 1200, notesTotal: 9282, notesPerSecond: 2.5, etaMs: 3_240_000 }));
    expect(el.style.display).toBe("");
    expect(el.textContent).toBe("Embedding notes: 1,200 of 9,282 · 2.5 notes/s · about 54 min left");
    // The app's tooltip, and a screen reader's name for the item: its progress first, then the click.
    expect(el.getAttribute("aria-label")).toBe("Embedding notes: 1,200 of 9,282 · 2.5 notes/s · about 54 min left. Click to pause embedding.");
    el.click();
    expect(clicked).toHaveBeenLastCalledWith("running");
  });

  it("says vectors are being moved to renamed notes while they are, not embedding 0 of a falling total", () => {
    const el = createDiv();
    const bar = new EmbeddingStatusBar(el, () => {});
    bar.render(progress({ notesTotal: 88, movesLeft: 120 - 32, notesMoved: 32, notesUnchanged: 4032 }));
    expect(el.textContent).toBe("Moving the vectors of renamed notes: 88 to go");
    expect(el.getAttribute("aria-label")).toBe("Moving the vectors of renamed notes: 88 to go. Click to pause embedding.");
    bar.render(progress({ state: "paused", notesTotal: 88, movesLeft: 88 }));
    expect(el.textContent).toBe("Paused while moving the vectors of renamed notes: 88 to go.");
  });

  it("says where a paused or failed run stopped, and a click resumes", () => {
    const el = createDiv();
    const clicked = vi.fn();
    const bar = new EmbeddingStatusBar(el, clicked);
    bar.render(progress({ state: "paused", notesDone: 10, notesTotal: 40 }));
    expect(el.textContent).toBe("Embedding paused at 10 of 40 notes.");
    expect(el.getAttribute("aria-label")).toBe("Embedding paused at 10 of 40 notes. Click to resume embedding.");
    bar.render(progress({ state: "failed", notesDone: 10, notesTotal: 40, error: { kind: "network", message: "Ollama at http://localhost:11434 did not answer." } }));
    expect(el.textContent).toBe("Embedding stopped at 10 of 40 notes: Ollama at http://localhost:11434 did not answer.");
    el.click();
    expect(clicked).toHaveBeenLastCalledWith("failed");
  });
});

describe("EmbeddingStatusBar's aria-label", () => {
  it("ends the shown text once before the tooltip: a stop before a closing quote or bracket is its end (it read 'not found.\". Click…')", () => {
    const el = createDiv();
    const bar = new EmbeddingStatusBar(el, () => {});
    for (const message of ['Ollama said "model not found."', "Ollama did not answer (is it running?)"]) {
      bar.render(progress({ state: "failed", notesDone: 10, notesTotal: 40, error: { kind: "network", message } }));
      expect(el.getAttribute("aria-label")).toBe(`Embedding stopped at 10 of 40 notes: ${message} Click to resume embedding.`);
    }
  });
});

describe("IndexProblemsModal", () => {
  const ready: IndexStatus = { notes: 3, lastUpdated: 1_700_000_000_000, state: "ready", problems: [] };
  const lines = (status: IndexStatus | null, embedding: string | null = null) => {
    new IndexProblemsModal(new App() as unknown as ObsidianApp, status, [], () => {}, embedding).open();
    return [...openModals.at(-1)!.contentEl.querySelectorAll("p")].map((p) => p.textContent);
  };
  /** The line that says when the index was last updated. */
  const firstLine = (status: IndexStatus | null) => lines(status).find((line) => /updated/.test(line ?? ""));

  it("says when the index was last updated, the whole date, where the user's dates have '. ' inside (Korean, Hungarian, Czech)", () => {
    // What toLocaleString gives on a Korean system; Hungarian, Czech and Slovak dates read alike.
    vi.spyOn(Date.prototype, "toLocaleString").mockReturnValue("2023. 11. 14. PM 10:13:20");
    expect(firstLine(ready)).toBe("Last updated 2023. 11. 14. PM 10:13:20.");
  });

  it("says the index was not updated yet when it never was", () => {
    expect(firstLine(null)).toBe("Not updated yet.");
  });

  // On a phone there is no status bar: this box ("Show index status") is where its words are read.
  it("says first what the status bar says, then the embedding job's progress when there is one", () => {
    expect(lines({ ...ready, state: "updating" }, "Embedding 10 of 40 notes")).toEqual(["Updating index… 3 notes.", "Embedding 10 of 40 notes", expect.stringMatching(/^Last updated /), "No problems found."]);
    expect(lines(ready)[0]).toBe("3 notes indexed.");
  });

  it("counts each problem once: the issues it is given already hold the index's own", () => {
    const withProblem: IndexStatus = { ...ready, problems: [{ path: "Odd.md", problem: { kind: "encoding", message: "Odd.md is not UTF-8." } }] };
    new IndexProblemsModal(new App() as unknown as ObsidianApp, withProblem, indexIssues(withProblem, [{ message: "The cache could not be saved." }]), () => {}).open();
    expect(openModals.at(-1)!.contentEl.querySelector("p")?.textContent).toBe("3 notes indexed · 2 problems.");
  });
});
