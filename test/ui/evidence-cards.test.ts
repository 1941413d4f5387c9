// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import "../stubs/obsidian";
import { renderEvidence, renderOutsideCard, renderVaultCard } from "../../src/ui/evidence-cards";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";

const noActions = { openNote: () => undefined, openUrl: () => undefined };

function marked(card: HTMLElement): string[] {
  return Array.from(card.querySelectorAll(".vault-research-card-snippet .vault-research-match")).map((m) => m.textContent ?? "");
}

describe("vault evidence cards", () => {
  it("say in words when the note is a web page someone saved, and not otherwise", () => {
    const saved = { ...vaultRow("Research/Sources/Lines.md", "Kite lines", []), saved_from: "https://kites.example/lines" };
    const savedCard = renderVaultCard(document.body.createDiv(), saved, noActions);
    expect(savedCard.querySelector(".vault-research-saved-page")?.textContent).toBe("Saved web page · kites.example");
    const own = renderVaultCard(document.body.createDiv(), vaultRow("Notes/Mine.md", "Mine", []), noActions);
    expect(own.querySelector(".vault-research-saved-page")).toBeNull();
  });

  it("mark the whole words the index matched, stems included", () => {
    const row = vaultRow("Libraries/Automerge.md", "Automerge", []);
    const text = "Automerge 2.0 (released in early 2023) moved the core to Rust.";
    row.sections = [{ heading: "History", text, start: 0, end: text.length, line: 3, highlights: [[0, 9], [15, 23]] }];
    row.retrieval.matched_terms = ["automerge", "release"];
    const card = renderVaultCard(document.body.createDiv(), row, noActions);
    expect(marked(card)).toEqual(["Automerge", "released"]);
  });

  it("keep a block's line break in a section that came without marks (a section found by its vector), and mark the words there", () => {
    const row = vaultRow("Libraries/Automerge vs Yjs.md", "Automerge vs Yjs", []);
    // The index's snippet: one line break where a block of the note ends, here between table rows.
    const text = "Question Automerge Yjs\nData model JSON-like document Shared types inside a Y.Doc\n\nFull history Yes, by design";
    row.sections = [{ heading: "Automerge vs Yjs", text, start: 0, end: text.length, line: 3 }];
    row.retrieval.matched_terms = ["automerge", "history"];
    const card = renderVaultCard(document.body.createDiv(), row, noActions);
    expect(card.querySelector(".vault-research-card-snippet")?.textContent).toBe("Question Automerge Yjs\nData model JSON-like document Shared types inside a Y.Doc\nFull history Yes, by design");
    expect(marked(card)).toEqual(["Automerge", "history"]);
    // A window that ends where a block does ends there: no last line of "…" alone.
    const long = `${"word ".repeat(55)}ends\n${"more ".repeat(20)}`;
    row.sections = [{ heading: "", text: long, start: 0, end: long.length, line: 3 }];
    const cut = renderVaultCard(document.body.createDiv(), row, noActions).querySelector(".vault-research-card-snippet")?.textContent ?? "";
    expect(cut.endsWith("ends…")).toBe(true);
  });

  it("say in words that the question named the note, and keep its lift among the figures", () => {
    const row = vaultRow("References/Out of Control.md", "Out of Control", []);
    row.retrieval.signals = [
      { name: "text match", detail: "BM25 over title", weight: 3.2 },
      { name: "named in the question", detail: 'the question says "out of control"', weight: 14.5 },
    ];
    const card = renderVaultCard(document.body.createDiv(), row, noActions);
    const reasons = Array.from(card.querySelectorAll(".vault-research-why-reasons li")).map((li) => li.textContent);
    expect(reasons).toEqual(['The question says "out of control"']);
    expect(card.querySelector(".vault-research-scores")?.textContent).toContain("14.5");
  });

  it("say which fields matched in people's words, properties among them", () => {
    const row = vaultRow("References/Bass on Top.md", "Bass on Top", []);
    row.retrieval.matched_terms = ["bass", "artist"];
    row.retrieval.missing_terms = ["come"];
    row.retrieval.signals = [
      { name: "field:title", detail: "matched bass", weight: 0 },
      { name: "field:properties", detail: "matched artist", weight: 0 },
    ];
    const card = renderVaultCard(document.body.createDiv(), row, noActions);
    expect(card.querySelector(".vault-research-why-words")?.textContent).toBe("Matches bass and artist in the title and properties; missing come.");
  });

  it("cut a long section that came without marks by the index's rule: from the lead-in its list hangs on, or its sentence's start, never mid-sentence", () => {
    const row = vaultRow("Health/Colds.md", "Colds", []);
    const intro = "Colds come from more than two hundred viruses, and most of them pass within a week or ten days whatever one takes for them, so patience is the main cure.";
    const list = "These are myths, not advice:\nGarlic cures colds\nVitamin C prevents every cold\nZinc lozenges stop a cold at once";
    const text = `${intro}\n${list}\n${"More words about rest and sleep follow here. ".repeat(4)}`;
    row.sections = [{ heading: "Myths", text, start: 0, end: text.length, line: 3 }];
    row.retrieval.matched_terms = ["zinc"];
    const card = renderVaultCard(document.body.createDiv(), row, noActions);
    expect(card.querySelector(".vault-research-card-snippet")?.textContent?.startsWith("… These are myths, not advice:\nGarlic cures colds")).toBe(true);
    expect(marked(card)).toEqual(["Zinc"]);
    const prose = `${"Rest helps. ".repeat(12)}Most colds pass within a week, and doctors agree that zinc taken early shortens them a little. ${"Sleep more. ".repeat(20)}`;
    row.sections = [{ heading: "Myths", text: prose, start: 0, end: prose.length, line: 3 }];
    const cut = renderVaultCard(document.body.createDiv(), row, noActions).querySelector(".vault-research-card-snippet")?.textContent ?? "";
    // The panel shows the "…" of a whole sentence's start before it on the same line (`renderSnippet`).
    expect(cut.startsWith("… Most colds pass within a week")).toBe(true);
  });

  it("fall back to marking the matched terms when a pack carries no highlights", () => {
    const row = vaultRow("Libraries/Automerge.md", "Automerge", []);
    const text = "Automerge moved the core to Rust.";
    row.sections = [{ heading: "History", text, start: 0, end: text.length, line: 3 }];
    row.retrieval.matched_terms = ["rust"];
    const card = renderVaultCard(document.body.createDiv(), row, noActions);
    expect(marked(card)).toEqual(["Rust"]);
  });

  it("show a web result's day as its source wrote it, and no date for one that is not a date", () => {
    const dateOf = (published_at: string) => {
      const card = renderOutsideCard(document.body.createDiv(), outsideRow("brave", "https://example.org/a", "A", "text", { published_at }), noActions);
      return card.querySelector(".vault-research-card-date")?.textContent ?? null;
    };
    expect(dateOf("2025-09-18T01:00:00+05:30")).toBe("2025-09-18");
    expect(dateOf("soon <b>x</b>")).toBeNull();
  });
});

/** What a screen reader adds after an element's name: the text of the elements `aria-describedby` names. */
function description(el: Element | null): string {
  const ids = el?.getAttribute("aria-describedby")?.split(/\s+/) ?? [];
  return ids.map((id) => document.getElementById(id)?.textContent ?? "").join(" ");
}

/** The name of the group `el` sits in, as a screen reader says it on entering. */
function groupName(el: Element | null): string {
  const group = el?.closest("[role=group]");
  return document.getElementById(group?.getAttribute("aria-labelledby") ?? "")?.textContent ?? "";
}

describe("evidence for a screen reader", () => {
  const web = outsideRow("brave", "https://automerge.org/blog", "Automerge 3.0", "Automerge 3.0 is out.");
  const note = vaultRow("Libraries/Automerge.md", "Automerge", [{ heading: "History", text: "Automerge 2.0 moved to Rust." }]);

  it("names each group by its counter, so a title reached by Tab says which side it is on", () => {
    const parent = document.body.createDiv();
    renderEvidence(parent, pack("automerge", [note], [web]), { ...noActions, promote: async () => ({ status: "failed", error: { kind: "write_failed", message: "x" }, message: "x" }) }, { outsideAsked: true });
    const [vaultTitle, webTitle] = Array.from(parent.querySelectorAll(".vault-research-card-title"));
    expect(groupName(vaultTitle)).toBe("Vault evidence: 1 row");
    expect(groupName(webTitle)).toBe("Outside vault: 1 row from Brave");
  });

  it("describes a web result's title and its Add to vault button by the outside-vault label and the page", () => {
    const parent = document.body.createDiv();
    const card = renderOutsideCard(parent, web, { ...noActions, promote: async () => ({ status: "failed", error: { kind: "write_failed", message: "x" }, message: "x" }) });
    expect(description(card.querySelector(".vault-research-card-title"))).toBe("Outside vault · Brave · ephemeral");
    expect(description(card.querySelector(".vault-research-card-action"))).toBe("Automerge 3.0");
    // Two cards never share an id.
    const other = renderOutsideCard(parent, web, noActions);
    expect(other.querySelector(".vault-research-card-title")?.getAttribute("aria-describedby")).not.toBe(card.querySelector(".vault-research-card-title")?.getAttribute("aria-describedby"));
  });

  it("describes each card's Why it matched by the card's title: by Tab alone, five alike said no note or page", () => {
    const parent = document.body.createDiv();
    const vaultCard = renderVaultCard(parent, note, noActions);
    const webCard = renderOutsideCard(parent, web, noActions);
    expect(description(vaultCard.querySelector(".vault-research-why > summary"))).toBe("Automerge");
    expect(description(webCard.querySelector(".vault-research-why > summary"))).toBe("Automerge 3.0");
  });
});
