// What page reading kept of an outside row, under its card: "Page read · 3 passages", collapsed
// until opened, then each passage with the headings it sits under. A model's summary of the
// passages, when the settings asked for one, is shown beside them and says who wrote it. All of it
// is web text: set as text, never as HTML.
import type { OutsideVaultRow } from "../evidence/research-pack";

export function renderPagePassages(card: HTMLElement, row: OutsideVaultRow): void {
  const passages = row.content_sections.filter((s) => s.fetched && s.role === "external_text");
  if (passages.length === 0) return;
  const details = card.createEl("details", { cls: "vault-research-page-passages" });
  details.createEl("summary", { text: `Page read · ${passages.length} passage${passages.length === 1 ? "" : "s"}` });
  const summary = row.content_sections.find((s) => s.fetched && s.role === "external_summary");
  if (summary) details.createDiv({ cls: "vault-research-page-summary", text: `Summary by the model: ${summary.text}` });
  for (const passage of passages) {
    const item = details.createDiv({ cls: "vault-research-page-passage" });
    const path = passage.heading_path ?? [];
    if (path.length > 0) item.createDiv({ cls: "vault-research-page-passage-heading", text: `§ ${path.join(" › ")}`, attr: { dir: "auto" } });
    item.createDiv({ cls: "vault-research-page-passage-text", text: passage.text, attr: { dir: "auto" } });
  }
}
