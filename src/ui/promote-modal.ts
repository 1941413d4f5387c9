// "Promote a result from this trace": a picker over the outside-vault rows of the trace note in
// view (title, domain, label, and where it was saved if it already was), then the chosen row is
// promoted and a notice says what became of it. The promotion itself is the host's.
import { Notice, SuggestModal, type App, type TFile } from "obsidian";
import { outsideVaultLabel } from "../evidence/labels";
import type { PromotionError, PromotionResult, TraceOutsideRow } from "../promote/promote";
import { hasProviderExcerpt } from "../promote/promoted-note";
import { oneLine } from "../text/one-line";
import { savedWords } from "./promotion-words";
import { fileTitle } from "../index/markdown";
import { typeSaysResearchTrace } from "../index/trace-marks";
import { suggestionListbox } from "./suggestion-listbox";

export interface TracePromotionHost {
  rowsOfTrace(tracePath: string): Promise<{ rows: TraceOutsideRow[] } | { error: PromotionError }>;
  promoteFromTrace(tracePath: string, sourceKey: string): Promise<PromotionResult>;
}

/**
 * Whether the command is offered for this file: a trace note (by the properties every trace note
 * carries; its type by the index's rule, a list too) that lists at least one outside-vault row. Read
 * from Obsidian's metadata cache, since a command's check must answer at once.
 */
export function isTraceNoteWithOutsideRows(app: App, file: TFile | null): file is TFile {
  if (!file || file.extension !== "md") return false;
  const properties = app.metadataCache.getFileCache(file)?.frontmatter;
  return properties !== undefined && typeSaysResearchTrace(properties.type) && Number(properties.outside_rows) > 0;
}

/** Reads the trace note's rows, lets the user pick one, promotes it and says how it went. */
export async function pickAndPromoteFromTrace(app: App, tracePath: string, host: TracePromotionHost): Promise<void> {
  const listed = await host.rowsOfTrace(tracePath);
  if ("error" in listed) {
    new Notice(`Cannot promote from this note: ${listed.error.message}`);
    return;
  }
  if (listed.rows.length === 0) {
    new Notice("This trace note has no outside-vault results to add to the vault.");
    return;
  }
  new PromoteResultModal(app, listed.rows, (choice) => {
    const progress = new Notice(addingNotice(choice), 0);
    void host
      .promoteFromTrace(tracePath, choice.row.source_key)
      .then((result) => new Notice(promotionNotice(result, hasProviderExcerpt(choice.row)), result.status === "failed" ? 10_000 : 6_000))
      .catch((error: unknown) => new Notice(`The page could not be added to the vault: ${error instanceof Error ? error.message : String(error)}`, 10_000))
      .finally(() => progress.hide());
  }).open();
}

/**
 * A note's name or path inside an English sentence, isolated (U+2068 … U+2069) so a right-to-left
 * name keeps its brackets and the words around it in place: a notice is plain text.
 */
function isolated(text: string): string {
  return `\u2068${text}\u2069`;
}

/** The most of a result's title the progress notice shows: it stays up while the page is fetched, over a phone's screen. */
const NOTICE_TITLE_CHARS = 120;

/**
 * The notice while the chosen result is added: its title on one line, cut, isolated like a note's
 * name (a trace note is a note: its title may be edited to any length, or be Arabic or Hebrew).
 */
export function addingNotice({ row }: TraceOutsideRow): string {
  return `Adding ${isolated(oneLine(row.title || row.url, NOTICE_TITLE_CHARS))} to the vault…`;
}

/** The notice after a promotion, in the words the panel's card uses. */
export function promotionNotice(result: PromotionResult, hasExcerpt = true): string {
  if (result.status === "created") {
    const holds = savedWords(result.extractStatus, hasExcerpt);
    return [`Saved as [[${isolated(fileTitle(result.notePath))}]] (${isolated(result.notePath)})${holds ? ` ${holds}` : "."}`, ...result.warnings].join("\n");
  }
  if (result.status === "already_in_vault") return `Already in your vault: [[${isolated(fileTitle(result.notePath))}]]. No new note was written.`;
  return `The page could not be added to the vault: ${result.message}`;
}

export class PromoteResultModal extends SuggestModal<TraceOutsideRow> {
  /** Stops keeping the list's roles and active option in step with the app's drawing. */
  private readonly stopListbox: () => void;

  constructor(
    app: App,
    private readonly rows: TraceOutsideRow[],
    private readonly choose: (row: TraceOutsideRow) => void,
  ) {
    super(app);
    this.setPlaceholder("Which result should become a note in your vault?");
    this.setInstructions([
      { command: "↑↓", purpose: "to choose" },
      { command: "↵", purpose: "to add to the vault" },
      { command: "esc", purpose: "to dismiss" },
    ]);
    this.emptyStateText = "No result of this trace matches.";
    // The app draws the results as plain divs: a screen reader heard a text box, never the list, nor
    // which result ↑↓ had reached before Enter added it to the vault.
    this.stopListbox = suggestionListbox(this.inputEl, this.resultContainerEl, "Results of this trace");
  }

  override onClose(): void {
    this.stopListbox();
    super.onClose();
  }

  getSuggestions(query: string): TraceOutsideRow[] {
    const words = query.toLowerCase().split(/\s+/).filter((w) => w !== "");
    if (words.length === 0) return this.rows;
    return this.rows.filter(({ row }) => {
      const haystack = `${row.title} ${row.domain} ${row.url}`.toLowerCase();
      return words.every((w) => haystack.includes(w));
    });
  }

  renderSuggestion({ row, promotedTo }: TraceOutsideRow, el: HTMLElement): void {
    el.addClass("vault-research-promote-suggestion");
    if (promotedTo !== undefined) el.addClass("is-promoted");
    el.createDiv({ cls: "vault-research-promote-suggestion-title", text: row.title || row.url, attr: { dir: "auto" } });
    const meta = el.createDiv({ cls: "vault-research-promote-suggestion-meta" });
    meta.createSpan({ cls: "vault-research-card-domain", text: row.domain });
    meta.createSpan({ cls: "vault-research-badge", text: outsideVaultLabel(row.provider, promotedTo !== undefined ? "promoted" : "ephemeral") });
    if (promotedTo !== undefined) {
      // Only the name reads in its own direction: the brackets stay around it in an Arabic or Hebrew name.
      const marker = el.createDiv({ cls: "vault-research-promoted-marker", text: "Already saved as [[" });
      marker.createSpan({ text: fileTitle(promotedTo), attr: { dir: "auto" } });
      marker.appendText("]]");
    }
  }

  onChooseSuggestion(item: TraceOutsideRow): void {
    this.choose(item);
  }
}

