// "Compare search levels": one query run at all four levels of the dial, side by side, so a user
// can see on their own vault what each level buys. One row per note, one column per level: its
// rank there, and how it moved from the level to its left — up, down, new (not found before) or
// gone (dropped) — in a badge with the words for screen readers. Under each level's heading: its
// latency, and for a level that could not run (a model or vectors missing, a rerank that failed),
// that it did not run and which level ran instead: its cells say "not run", never that lower
// level's ranks as its own. Below the table, each level's notices in words. The runs are the
// dial's own (`compareLevels`).
import { ItemView, Keymap, type WorkspaceLeaf } from "obsidian";
import { DIAL_LEVEL_NAMES, DIAL_LEVELS, type DialLevel } from "../index/dial/dial-types";
import { ranAsAsked, type ComparedLevel, type ComparisonRow, type LevelComparison, type RankMove } from "../index/dial/level-comparison";
import { keyInQuestion } from "../research/key-in-question";
import { errorMessage } from "../text/error-message";
import type { DialHost } from "./dial-host";
import { KEY_IN_QUERY, openAtSection } from "./search-modal";

export const COMPARISON_VIEW_TYPE = "vault-research-comparison";

/** Captions' ids: a comparison view may be open in more than one leaf. */
let captionCount = 0;

/** The badge's text and the words a screen reader hears, for a move into a level from level `from`; null when there is nothing to mark. */
export function moveWords(move: RankMove, from: DialLevel): { badge: string; words: string } | null {
  const before = DIAL_LEVEL_NAMES[from];
  switch (move.kind) {
    case "up":
      return { badge: `↑${move.by}`, words: `up ${move.by} from ${before}` };
    case "down":
      return { badge: `↓${move.by}`, words: `down ${move.by} from ${before}` };
    case "new":
      return { badge: "new", words: `new, not found by ${before}` };
    case "gone":
      return { badge: "gone", words: `gone, found by ${before}` };
    case "same":
    case "absent":
      return null;
  }
}

export class ComparisonView extends ItemView {
  private inputEl!: HTMLInputElement;
  private statusEl!: HTMLElement;
  private resultEl!: HTMLElement;
  private running: AbortController | null = null;
  /** The last comparison shown (tests and the workbench read it). */
  shown: LevelComparison | null = null;

  constructor(
    leaf: WorkspaceLeaf,
    private readonly host: DialHost,
  ) {
    super(leaf);
    this.icon = "columns-3";
  }

  getViewType(): string {
    return COMPARISON_VIEW_TYPE;
  }

  getDisplayText(): string {
    return "Compare search levels";
  }

  override getIcon(): string {
    return "columns-3";
  }

  protected override async onOpen(): Promise<void> {
    const root = this.contentEl;
    root.empty();
    root.addClass("vault-research-comparison");
    root.createEl("h2", { cls: "vault-research-comparison-title", text: "Compare search levels" });
    root.createDiv({ cls: "vault-research-comparison-intro", text: "One query at all four levels: each note's rank at each level, and how it moved from the level before." });
    const form = root.createEl("form", { cls: "vault-research-comparison-form", attr: { role: "search" } });
    this.inputEl = form.createEl("input", { cls: "vault-research-comparison-input", type: "search", attr: { "aria-label": "Query to compare", placeholder: "A query to run at every level…", dir: "auto" } });
    form.createEl("button", { cls: "mod-cta", text: "Compare", attr: { type: "submit" } });
    form.addEventListener("submit", (evt) => {
      evt.preventDefault();
      void this.compare(this.inputEl.value);
    });
    this.statusEl = root.createDiv({ cls: "vault-research-comparison-status", attr: { role: "status", "aria-live": "polite" } });
    this.resultEl = root.createDiv({ cls: "vault-research-comparison-result" });
    this.inputEl.focus();
  }

  protected override async onClose(): Promise<void> {
    this.running?.abort();
  }

  /** Runs `query` at all four levels and shows them side by side. */
  async compare(query: string): Promise<void> {
    const trimmed = query.trim();
    this.running?.abort();
    this.inputEl.value = trimmed;
    this.resultEl.empty();
    if (trimmed === "") {
      this.statusEl.setText("Type a query to compare.");
      return;
    }
    // Four searches would send it to the embedding and chat models and log it four times (see the search modal).
    if (keyInQuestion(trimmed)) {
      this.statusEl.setText(KEY_IN_QUERY);
      return;
    }
    const controller = new AbortController();
    this.running = controller;
    this.statusEl.setText("Running all four levels…");
    this.resultEl.setAttr("aria-busy", "true");
    try {
      const comparison = await this.host.compare(trimmed, { signal: controller.signal });
      if (this.running !== controller) return;
      this.shown = comparison;
      this.statusEl.setText(comparisonStatus(comparison));
      if (comparison.rows.length > 0) this.renderTable(comparison);
      this.renderNotices(comparison);
    } catch (error) {
      if (this.running === controller) this.statusEl.setText(`The comparison failed: ${errorMessage(error)}`);
    } finally {
      if (this.running === controller) {
        this.running = null;
        this.resultEl.setAttr("aria-busy", "false");
      }
    }
  }

  private renderTable(comparison: LevelComparison): void {
    const wrap = this.resultEl.createDiv({ cls: "vault-research-comparison-scroll" });
    // Each part says what it is: the narrow layout (styles.css) makes the table a block and its rows
    // grids, and Safari then reads it as no table at all — no row, column or header of a rank.
    const captionId = `vault-research-comparison-caption-${++captionCount}`;
    const table = wrap.createEl("table", { cls: "vault-research-comparison-table", attr: { role: "table", "aria-labelledby": captionId } });
    table.createEl("caption", { cls: "vault-research-visually-hidden", text: `Rank of each note at each level for “${comparison.query}”`, attr: { id: captionId } });
    const head = table.createEl("thead", { attr: { role: "rowgroup" } }).createEl("tr", { attr: { role: "row" } });
    head.createEl("th", { text: "Note", attr: { scope: "col", role: "columnheader" } });
    for (const level of comparison.levels) {
      const th = head.createEl("th", { attr: { scope: "col", role: "columnheader" } });
      th.createDiv({ cls: "vault-research-comparison-level", text: DIAL_LEVEL_NAMES[level.level] });
      const ran = ranAsAsked(level) ? "" : `did not run: ${DIAL_LEVEL_NAMES[level.ranLevel]} ran instead · `;
      th.createDiv({ cls: "vault-research-comparison-level-meta", text: `${ran}${Math.round(level.latencyMs)} ms` });
    }
    const body = table.createEl("tbody", { attr: { role: "rowgroup" } });
    for (const row of comparison.rows) this.renderRow(body, row, comparison.levels);
  }

  private renderRow(body: HTMLElement, row: ComparisonRow, levels: readonly ComparedLevel[]): void {
    const tr = body.createEl("tr", { attr: { role: "row" } });
    const th = tr.createEl("th", { attr: { scope: "row", role: "rowheader" } });
    const link = th.createEl("a", { cls: "vault-research-comparison-note", text: row.title, href: "#", attr: { title: row.key, dir: "auto" } });
    link.addEventListener("click", (evt) => {
      evt.preventDefault();
      void openAtSection(this.app, row.key, undefined, Keymap.isModEvent(evt));
    });
    DIAL_LEVELS.forEach((level, i) => {
      const compared = levels[i];
      if (compared && !ranAsAsked(compared)) {
        // Its results were the lower level's, in that level's column: not ranks of this level.
        const td = tr.createEl("td", { cls: ["vault-research-comparison-cell", "is-not-run"], attr: { role: "cell" } });
        td.createSpan({ cls: "vault-research-comparison-rank", text: "not run", attr: { "aria-hidden": "true" } });
        td.createSpan({ cls: "vault-research-visually-hidden", text: `${DIAL_LEVEL_NAMES[level]} did not run` });
        return;
      }
      const rank = row.ranks[i] ?? null;
      const from = compared?.comparedWith ?? null;
      const move = from === null ? null : moveWords(row.moves[i], from);
      const td = tr.createEl("td", { cls: ["vault-research-comparison-cell", ...(move ? [`is-${row.moves[i].kind}`] : [])], attr: { role: "cell" } });
      td.createSpan({ cls: "vault-research-comparison-rank", text: rank === null ? "–" : String(rank) });
      if (rank === null) td.createSpan({ cls: "vault-research-visually-hidden", text: `not in ${DIAL_LEVEL_NAMES[level]}'s results` });
      if (!move) return;
      td.createSpan({ cls: "vault-research-comparison-move", text: move.badge, attr: { "aria-hidden": "true" } });
      td.createSpan({ cls: "vault-research-visually-hidden", text: `, ${move.words}` });
    });
  }

  private renderNotices(comparison: LevelComparison): void {
    const lines = comparison.levels.flatMap((level) => level.notices.map((n) => `${DIAL_LEVEL_NAMES[level.level]}: ${n.message}`));
    if (lines.length === 0) return;
    const list = this.resultEl.createEl("ul", { cls: "vault-research-comparison-notices" });
    for (const line of lines) list.createEl("li", { text: line });
  }
}

/** "4 notes across the four levels.", and which levels did not run when some could not. */
export function comparisonStatus(comparison: LevelComparison): string {
  const count = comparison.rows.length;
  const notRun = comparison.levels.filter((l) => !ranAsAsked(l)).map((l) => DIAL_LEVEL_NAMES[l.level]);
  const found = count === 0 ? "No level found a note for this query." : `${count} ${count === 1 ? "note" : "notes"} across the ${notRun.length === 0 ? "four levels" : "levels that ran"}.`;
  if (notRun.length === 0) return found;
  return `${found} ${listWords(notRun)} could not run; why is said below.`;
}

/** "Hybrid", "Hybrid and Rerank", "Hybrid, Multi-field and Rerank". */
function listWords(names: readonly string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}
