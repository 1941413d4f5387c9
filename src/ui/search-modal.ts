// "Search vault": a quick switcher over the vault index. Each suggestion shows the note's title,
// its path, the best section's heading and a snippet with the matched words marked; choosing one
// opens the note at that section.
import { Keymap, SuggestModal, type App, type PaneType } from "obsidian";
import type { NoteStore } from "../ports";
import type { Highlight, SearchOptions, SearchResult, SectionHit } from "../index/types";

/** The part of the vault index this modal uses. */
export interface VaultSearcher {
  search(query: string, store: NoteStore, options?: SearchOptions): Promise<SearchResult[]>;
}

const RESULT_LIMIT = 20;

export class VaultSearchModal extends SuggestModal<SearchResult> {
  constructor(
    app: App,
    private readonly searcher: VaultSearcher,
    private readonly store: NoteStore,
  ) {
    super(app);
    this.limit = RESULT_LIMIT;
    this.setPlaceholder("Search your notes…");
    this.setInstructions([
      { command: "↑↓", purpose: "to navigate" },
      { command: "↵", purpose: "to open at the matching section" },
      { command: "Ctrl ↵", purpose: "to open in a new tab" },
      { command: "Esc", purpose: "to dismiss" },
    ]);
    this.modalEl.addClass("vault-research-search");
  }

  async getSuggestions(query: string): Promise<SearchResult[]> {
    if (query.trim() === "") {
      this.emptyStateText = "Type to search your vault.";
      return [];
    }
    try {
      const results = await this.searcher.search(query, this.store, { limit: RESULT_LIMIT });
      this.emptyStateText = "No notes match.";
      return results;
    } catch (error) {
      this.emptyStateText = `Search failed: ${error instanceof Error ? error.message : String(error)}`;
      return [];
    }
  }

  renderSuggestion(result: SearchResult, el: HTMLElement): void {
    el.addClass("vault-research-search-result");
    el.createDiv({ cls: "vault-research-search-result-title", text: result.title });
    el.createDiv({ cls: "vault-research-search-result-path", text: result.path });
    const best = result.sections[0];
    if (!best) return;
    if (best.headingPath.length > 0) {
      el.createDiv({ cls: "vault-research-search-result-heading", text: best.headingPath.join(" › ") });
    }
    if (best.snippet) renderSnippet(el.createDiv({ cls: "vault-research-search-result-snippet" }), best.snippet, best.highlights);
  }

  onChooseSuggestion(result: SearchResult, evt: MouseEvent | KeyboardEvent): void {
    void openAtSection(this.app, result.path, result.sections[0], Keymap.isModEvent(evt));
  }
}

/** Writes `snippet` into `el` as text, wrapping each highlighted span in a marked span. Never HTML. */
export function renderSnippet(el: HTMLElement, snippet: string, highlights: readonly Highlight[]): void {
  let at = 0;
  for (const [start, end] of mergeHighlights(highlights, snippet.length)) {
    if (start > at) el.appendText(snippet.slice(at, start));
    el.createSpan({ cls: "vault-research-match", text: snippet.slice(start, end) });
    at = end;
  }
  if (at < snippet.length) el.appendText(snippet.slice(at));
}

/** Sorted, clamped to the text, overlaps joined, empty spans dropped. */
export function mergeHighlights(highlights: readonly Highlight[], length: number): Highlight[] {
  const clamped = highlights
    .map(([s, e]): Highlight => [Math.max(0, Math.min(s, length)), Math.max(0, Math.min(e, length))])
    .filter(([s, e]) => e > s)
    .sort((a, b) => a[0] - b[0]);
  const merged: Highlight[] = [];
  for (const [s, e] of clamped) {
    const last = merged[merged.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else merged.push([s, e]);
  }
  return merged;
}

// Characters that end or change the meaning of a link's heading part.
const UNLINKABLE_HEADING = /[#|^[\]]/;

/** Opens a note scrolled to a section: by heading link where possible, by line otherwise. */
export async function openAtSection(app: App, path: string, section: Pick<SectionHit, "heading" | "line"> | undefined, newLeaf: PaneType | boolean = false): Promise<void> {
  if (!section || section.heading === "") {
    await app.workspace.openLinkText(path, "", newLeaf);
    return;
  }
  if (!UNLINKABLE_HEADING.test(section.heading)) {
    await app.workspace.openLinkText(`${path}#${section.heading}`, "", newLeaf);
    return;
  }
  const file = app.vault.getFileByPath(path);
  if (!file) {
    await app.workspace.openLinkText(path, "", newLeaf);
    return;
  }
  // The editor counts lines from 0; sections count them from 1.
  await app.workspace.getLeaf(newLeaf).openFile(file, { eState: { line: Math.max(0, section.line - 1) } });
}
