// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import type { WorkspaceLeaf as ObsidianLeaf } from "obsidian";
import { App, Vault, WorkspaceLeaf } from "../stubs/obsidian";
import type { DialLevel, DialResult } from "../../src/index/dial/dial-types";
import { COMPARISON_VIEW_TYPE, ComparisonView, moveWords } from "../../src/ui/comparison-view";
import { KEY_IN_QUERY } from "../../src/ui/search-modal";
import { dialResponse, dialResult, FakeDialHost, unavailableNotice } from "./dial/fake-dial-host";

const note = (name: string): DialResult => dialResult({ path: `${name}.md`, key: `${name}.md`, title: name });

/** Each level's notes, best first: B climbs, D is new at level 2, C is gone at level 4. */
const ORDERS: Record<DialLevel, string[]> = { 1: ["A", "B", "C"], 2: ["A", "D", "B", "C"], 3: ["B", "A", "D", "C"], 4: ["B", "A", "D"] };

async function openView(host: FakeDialHost) {
  const app = new App({ vault: new Vault() });
  const view = new ComparisonView(new WorkspaceLeaf(app) as unknown as ObsidianLeaf, host);
  document.body.appendChild(view.containerEl);
  view.load();
  await (view as unknown as { onOpen(): Promise<void> }).onOpen();
  return { app, view, el: view.contentEl };
}

function cells(el: HTMLElement): string[][] {
  return [...el.querySelectorAll("tbody tr")].map((tr) => [...tr.children].map((c) => c.textContent ?? ""));
}

describe("the comparison view", () => {
  it("has its own view type and a labelled query box", async () => {
    const { view, el } = await openView(new FakeDialHost());
    expect(view.getViewType()).toBe(COMPARISON_VIEW_TYPE);
    expect(view.getDisplayText()).toBe("Compare search levels");
    expect(el.querySelector("input")?.getAttribute("aria-label")).toBe("Query to compare");
    expect(document.activeElement).toBe(el.querySelector("input"));
  });

  it("does not compare a query holding an API key pasted by mistake: no level runs, so nothing is sent or logged", async () => {
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: r.level, ranLevel: r.level, results: ORDERS[r.level].map(note) }));
    const { view, el } = await openView(host);
    await view.compare("merge edits ghp_R2d2C3po4Bb8Xy7Wq1Lm6Nz5Kt9Vs0Hj3");
    expect(host.requests).toEqual([]);
    expect(el.querySelector(".vault-research-comparison-status")?.textContent).toBe(KEY_IN_QUERY);
    expect(el.querySelectorAll("tbody tr")).toHaveLength(0);
  });

  it("says each part of the table is one by its role, which the narrow layout's display: block and grid take from it in Safari", async () => {
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: r.level, ranLevel: r.level, results: ORDERS[r.level].map(note) }));
    const { view, el } = await openView(host);
    await view.compare("merge edits");
    const table = el.querySelector("table")!;
    expect(table.getAttribute("role")).toBe("table");
    expect(el.querySelector(`[id="${table.getAttribute("aria-labelledby")}"]`)?.textContent).toBe("Rank of each note at each level for “merge edits”");
    expect([...table.querySelectorAll("thead, tbody")].map((g) => g.getAttribute("role"))).toEqual(["rowgroup", "rowgroup"]);
    const rows = [...table.querySelectorAll("tr")];
    expect(rows.map((tr) => tr.getAttribute("role"))).toEqual(rows.map(() => "row"));
    expect([...rows[0].children].map((c) => c.getAttribute("role"))).toEqual(["columnheader", "columnheader", "columnheader", "columnheader", "columnheader"]);
    for (const tr of rows.slice(1)) expect([...tr.children].map((c) => c.getAttribute("role"))).toEqual(["rowheader", "cell", "cell", "cell", "cell"]);
  });

  it("runs all four levels for the query typed and shows each note's rank and move side by side", async () => {
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: r.level, ranLevel: r.level, latencyMs: 10 * r.level, results: ORDERS[r.level].map(note) }));
    const { el } = await openView(host);
    el.querySelector<HTMLInputElement>(".vault-research-comparison-input")!.value = "  merge edits ";
    el.querySelector("form")!.dispatchEvent(new Event("submit", { cancelable: true }));
    await vi.waitFor(() => expect(el.querySelectorAll("tbody tr")).toHaveLength(4));
    expect(host.requests.map((r) => [r.level, r.query])).toEqual([[1, "merge edits"], [2, "merge edits"], [3, "merge edits"], [4, "merge edits"]]);
    expect([...el.querySelectorAll("thead th")].map((th) => th.textContent)).toEqual(["Note", "Lexical10 ms", "Hybrid20 ms", "Multi-field30 ms", "Rerank40 ms"]);
    expect(cells(el)).toEqual([
      ["B", "2", "3↓1, down 1 from Lexical", "1↑2, up 2 from Hybrid", "1"],
      ["A", "1", "1", "2↓1, down 1 from Hybrid", "2"],
      ["D", "–not in Lexical's results", "2new, new, not found by Lexical", "3↓1, down 1 from Hybrid", "3"],
      ["C", "3", "4↓1, down 1 from Lexical", "4", "–not in Rerank's resultsgone, gone, found by Multi-field"],
    ]);
    const marked = [...el.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => [...td.classList].find((c) => c.startsWith("is-")) ?? ""));
    expect(marked[0]).toEqual(["", "is-down", "is-up", ""]);
    expect(marked[2]).toEqual(["", "is-new", "is-down", ""]);
    expect(marked[3]).toEqual(["", "is-down", "", "is-gone"]);
    expect(el.querySelector(".vault-research-comparison-move")?.getAttribute("aria-hidden")).toBe("true");
    expect(el.querySelector(".vault-research-comparison-status")?.textContent).toBe("4 notes across the four levels.");
  });

  it("says plainly that a level did not run, and shows no ranks of a lower level as its own", async () => {
    const host = new FakeDialHost((r) =>
      r.level === 1
        ? dialResponse({ query: r.query, results: [note("A")] })
        : dialResponse({ query: r.query, level: r.level, ranLevel: 1, results: [note("A")], notices: [unavailableNotice(r.level, "no_embedder")] }),
    );
    const { view, el } = await openView(host);
    await view.compare("crdt");
    expect(el.querySelectorAll("thead th")[2].textContent).toBe("Hybriddid not run: Lexical ran instead · 12 ms");
    expect(cells(el)).toEqual([["A", "1", "not runHybrid did not run", "not runMulti-field did not run", "not runRerank did not run"]]);
    expect(el.querySelectorAll(".vault-research-comparison-cell.is-not-run [aria-hidden='true']")).toHaveLength(3);
    expect(el.querySelector(".vault-research-comparison-status")?.textContent).toBe("1 note across the levels that ran. Hybrid, Multi-field and Rerank could not run; why is said below.");
    expect([...el.querySelectorAll(".vault-research-comparison-notices li")].map((li) => li.textContent)).toEqual([
      "Hybrid: No embedding model is set, so this search used words only (level 1).",
      "Multi-field: No embedding model is set, so this search used words only (level 1).",
      "Rerank: No embedding model is set, so this search used words only (level 1).",
    ]);
  });

  it("a rerank that failed is not shown as one that kept every note in place", async () => {
    const rerankFailed = { kind: "rerank_failed" as const, reason: "model_error" as const, message: "stand-in could not reorder the results: the model server answered 500. Level 3's order stands." };
    const host = new FakeDialHost((r) =>
      r.level === 4
        ? dialResponse({ query: r.query, level: 4, ranLevel: 3, results: ORDERS[3].map(note), notices: [rerankFailed] })
        : dialResponse({ query: r.query, level: r.level, ranLevel: r.level, results: ORDERS[r.level].map(note) }),
    );
    const { view, el } = await openView(host);
    await view.compare("merge edits");
    expect(el.querySelectorAll("thead th")[4].textContent).toBe("Rerankdid not run: Multi-field ran instead · 12 ms");
    expect(cells(el).map((row) => row[4])).toEqual(["not runRerank did not run", "not runRerank did not run", "not runRerank did not run", "not runRerank did not run"]);
    expect(el.querySelectorAll("td.is-same, td:nth-child(5).is-up, td:nth-child(5).is-down")).toHaveLength(0);
    // Ordered by Multi-field, the highest level that ran.
    expect(cells(el).map((row) => row[0])).toEqual(["B", "A", "D", "C"]);
    expect(el.querySelector(".vault-research-comparison-status")?.textContent).toBe("4 notes across the levels that ran. Rerank could not run; why is said below.");
  });

  it("measures a move from the last level that ran, and names that level", async () => {
    // Level 2 fell back to words; the vectors were ready by the time level 3 ran.
    const host = new FakeDialHost((r) =>
      r.level === 2
        ? dialResponse({ query: r.query, level: 2, ranLevel: 1, results: ORDERS[1].map(note), notices: [unavailableNotice(2, "no_vectors")] })
        : dialResponse({ query: r.query, level: r.level, ranLevel: r.level, results: ORDERS[r.level].map(note) }),
    );
    const { view, el } = await openView(host);
    await view.compare("merge edits");
    const b = cells(el).find((row) => row[0] === "B")!;
    expect(b[3]).toBe("1↑1, up 1 from Lexical");
  });

  it("says so when no level found anything, and when the comparison failed", async () => {
    const { view, el } = await openView(new FakeDialHost((r) => dialResponse({ query: r.query, level: r.level, ranLevel: r.level })));
    await view.compare("espresso");
    expect(el.querySelector(".vault-research-comparison-status")?.textContent).toBe("No level found a note for this query.");
    expect(el.querySelector("table")).toBeNull();

    const failing = await openView(
      new FakeDialHost(() => {
        throw new Error("the index is being rebuilt");
      }),
    );
    await failing.view.compare("espresso");
    expect(failing.el.querySelector(".vault-research-comparison-status")?.textContent).toBe("The comparison failed: the index is being rebuilt");
  });

  it("asks for a query rather than running an empty one", async () => {
    const host = new FakeDialHost();
    const { view, el } = await openView(host);
    await view.compare("   ");
    expect(host.requests).toEqual([]);
    expect(el.querySelector(".vault-research-comparison-status")?.textContent).toBe("Type a query to compare.");
  });

  it("opens a note from its title", async () => {
    const host = new FakeDialHost((r) => dialResponse({ query: r.query, level: r.level, ranLevel: r.level, results: [note("Concepts/CRDTs")] }));
    const { app, view, el } = await openView(host);
    app.vault.seed("Concepts/CRDTs.md", "# CRDTs\n");
    await view.compare("crdt");
    el.querySelector<HTMLElement>(".vault-research-comparison-note")!.click();
    await Promise.resolve();
    expect(app.workspace.openedLinks.map((l) => l.linktext)).toEqual(["Concepts/CRDTs.md"]);
  });
});

describe("a move in words", () => {
  it("marks up, down, new and gone, and nothing for same or absent", () => {
    expect(moveWords({ kind: "up", by: 2 }, 2)).toEqual({ badge: "↑2", words: "up 2 from Hybrid" });
    expect(moveWords({ kind: "down", by: 1 }, 3)).toEqual({ badge: "↓1", words: "down 1 from Multi-field" });
    expect(moveWords({ kind: "new" }, 1)).toEqual({ badge: "new", words: "new, not found by Lexical" });
    expect(moveWords({ kind: "gone" }, 3)).toEqual({ badge: "gone", words: "gone, found by Multi-field" });
    expect(moveWords({ kind: "same" }, 1)).toBeNull();
    expect(moveWords({ kind: "absent" }, 1)).toBeNull();
  });
});
