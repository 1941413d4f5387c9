// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import "../stubs/obsidian";
import { renderOutsideCard } from "../../src/ui/evidence-cards";
import { renderPagePassages } from "../../src/ui/page-passages";
import { outsideRow } from "../support/pack-fixtures";

const noActions = { openNote: () => undefined, openUrl: () => undefined };

function readRow() {
  const row = outsideRow("brave-web", "https://docs.quillsync.example/guide/compaction/", "Compaction", "Quillsync compacts its history.");
  row.content_sections.push(
    { role: "external_text", text: "Quillsync keeps each tombstone for 14 days.", truncated: false, fetched: true, start: 10, end: 53, heading_path: ["Tombstones and deleted text"] },
    { role: "external_text", text: "<b>Set</b> compaction.tombstoneDays.", truncated: false, fetched: true, start: 90, end: 126 },
    { role: "external_summary", text: "Tombstones last two weeks.", truncated: false, fetched: true },
  );
  return row;
}

describe("page passages on an outside card", () => {
  it("shows 'Page read · 2 passages', collapsed, with each passage and its heading path", () => {
    const card = document.body.createDiv();
    renderPagePassages(card, readRow());
    const details = card.querySelector("details.vault-research-page-passages") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.querySelector("summary")?.textContent).toBe("Page read · 2 passages");
    expect(Array.from(details.querySelectorAll(".vault-research-page-passage-heading"), (e) => e.textContent)).toEqual(["§ Tombstones and deleted text"]);
    expect(details.querySelector(".vault-research-page-summary")?.textContent).toBe("Summary by the model: Tombstones last two weeks.");
  });

  it("renders web text as text, never as HTML", () => {
    const card = document.body.createDiv();
    renderPagePassages(card, readRow());
    const texts = card.querySelectorAll(".vault-research-page-passage-text");
    expect(texts[1].textContent).toBe("<b>Set</b> compaction.tombstoneDays.");
    expect(card.querySelector("b")).toBeNull();
  });

  it("adds nothing for a row whose page was not read", () => {
    const card = document.body.createDiv();
    renderPagePassages(card, outsideRow("brave", "https://example.org/", "Example", "A snippet."));
    expect(card.children).toHaveLength(0);
  });

  it("is part of the outside card", () => {
    const card = renderOutsideCard(document.body.createDiv(), readRow(), noActions);
    expect(card.querySelector("details.vault-research-page-passages summary")?.textContent).toBe("Page read · 2 passages");
  });
});
