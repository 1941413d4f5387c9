// "Search vault": a quick switcher over the search dial. Above the results sit the dial (Lexical /
// Hybrid / Multi-field / Rerank, remembered for this modal) and "Show scores"; one status line
// says what a slow level is doing ("Hybrid: embedding the query…") and, once done, which level ran
// and why when it was not the one asked for. Each suggestion shows the note's title, its path, the
// section that matched and a snippet with the matched words marked; with scores shown, each
// lane's rank and score and the rerank's move. When no note shares a word with the query, the
// three closest by spelling show with their low scores (no model, no network), and, if a vector
// level can run, one click shows the three closest by meaning (a click, because the query then
// goes to the embedding model, which level 1 never asks).
// Choosing one records the click-through and opens the note at that section.
import { Keymap, Notice, Platform, SuggestModal, type App, type PaneType } from "obsidian";
import { DIAL_LEVEL_NAMES, type DialLevel, type DialResponse, type DialResult } from "../index/dial/dial-types";
import type { Highlight, SectionHit } from "../index/types";
import { keyInQuestion } from "../research/key-in-question";
import { errorMessage } from "../text/error-message";
import { joinSentences } from "../text/sentence-ends";
import { DialControl, levelThatWillRun, notReadyReason } from "./dial-control";
import type { DialHost } from "./dial-host";
import { renderDialScores, sectionWords, similarityOf } from "./dial-result-words";
import { fileTitle } from "../index/markdown";
import { nextSuggestionId, suggestionListbox } from "./suggestion-listbox";

const RESULT_LIMIT = 20;
const CLOSEST_COUNT = 3;

/**
 * How long typing must pause before a search starts, per level that will run: every search is
 * logged, and levels 2–4 ask a model (level 4 a slow one), so half-typed words are not searched.
 */
export const TYPING_PAUSE_MS: Record<DialLevel, number> = { 1: 120, 2: 250, 3: 250, 4: 600 };

export interface VaultSearchModalOptions {
  typingPauseMs?: Record<DialLevel, number>;
}

/** What a slow level is doing while it runs, by the level that will run; level 1 is quick and says nothing. */
export function runningWords(level: DialLevel): string {
  if (level === 1) return "";
  if (level === 4) return "Rerank: embedding the query, then reranking…";
  return `${DIAL_LEVEL_NAMES[level]}: embedding the query…`;
}

/**
 * What an overtaken search answers: never settled, so the app keeps the newer search's list rather
 * than drawing this one's (an empty list, or the same list again with the selection moved back).
 * A new one each time: one shared promise would hold every abandoned caller's reaction for good.
 */
function overtaken(): Promise<DialResult[]> {
  return new Promise<DialResult[]>(() => undefined);
}

/** Said instead of searching a query that is, or holds, an API key (a paste into the wrong box). */
export const KEY_IN_QUERY = "This looks like an API key, so it was not searched: nothing was sent to a model or written to the query log. A key goes in settings.";

/**
 * The key `Mod` is here: Cmd on a Mac, Ctrl elsewhere. A Mac user told "Ctrl ↵" pressed a key the
 * modal does not answer (the app reads Cmd as Mod there), and no new tab opened.
 */
export function modKey(): { symbol: string; name: string } {
  return Platform.isMacOS ? { symbol: "⌘", name: "Cmd" } : { symbol: "Ctrl", name: "Ctrl" };
}

/** The keys of the list, for a screen reader: the line of symbols under the list says them to the eye. */
export function searchKeys(): string {
  return `Up and down arrows move through the notes found. Enter opens one at the matching section, ${modKey().name} Enter in a new tab. Escape closes.`;
}

/** Under a note found by the vault's own language alone (none of the query's words is in it). */
export const BY_MEANING = "By meaning in this vault · none of your words is in this note";

export class VaultSearchModal extends SuggestModal<DialResult> {
  private readonly dial: DialControl;
  private readonly statusEl: HTMLElement;
  /** What a screen reader hears: only how a search ended, and only when that changed (see `sayAloud`). */
  private readonly liveEl: HTMLElement;
  private saidAloud = "";
  private readonly scoresInput: HTMLInputElement;
  /** The search each shown result came from, for its click-through. */
  private readonly responses = new WeakMap<DialResult, DialResponse>();
  /** Results shown as the closest notes when nothing matched: not matches, and said so. */
  private readonly closest = new WeakSet<DialResult>();
  private readonly offerEl: HTMLElement;
  /** The query the user asked the closest notes for, and the word search that found nothing for it. */
  private closestAskedFor: string | null = null;
  private noMatch: DialResponse | null = null;
  private readonly typingPauseMs: Record<DialLevel, number>;
  private searchCount = 0;
  private pending: AbortController | null = null;
  /** Stops keeping the list's roles and active option in step with the app's drawing. */
  private readonly stopListbox: () => void;

  constructor(
    app: App,
    private readonly host: DialHost,
    options: VaultSearchModalOptions = {},
  ) {
    super(app);
    this.typingPauseMs = options.typingPauseMs ?? TYPING_PAUSE_MS;
    this.limit = RESULT_LIMIT;
    this.setPlaceholder("Search your notes…");
    // A query in Arabic or Hebrew is typed right to left.
    this.inputEl.setAttr("dir", "auto");
    this.setInstructions([
      { command: "↑↓", purpose: "to navigate" },
      { command: "↵", purpose: "to open at the matching section" },
      { command: `${modKey().symbol} ↵`, purpose: "to open in a new tab" },
      { command: "Esc", purpose: "to dismiss" },
    ]);
    // The app's list chooses on a plain Enter only: Ctrl (Cmd) ↵, which the line above promises, is ours.
    this.scope.register(["Mod"], "Enter", (evt) => {
      this.selectActiveSuggestion(evt);
      return false;
    });
    this.modalEl.addClass("vault-research-search");
    // Beside the results, wherever the app nests them: between the query and the list.
    const toolbar = createDiv({ cls: "vault-research-search-toolbar" });
    this.resultContainerEl.insertAdjacentElement("beforebegin", toolbar);
    // A level that becomes ready (or stops being) while the modal is open is said on its status line.
    this.dial = new DialControl(toolbar, host, "search-modal", {
      onChange: () => this.searchAgain(),
      announce: (words) => {
        this.say(words);
        this.sayAloud(words);
      },
    });
    const scores = toolbar.createEl("label", { cls: "vault-research-search-scores-toggle" });
    this.scoresInput = scores.createEl("input", { type: "checkbox" });
    scores.createSpan({ text: "Show scores" });
    this.scoresInput.checked = host.showScores();
    this.scoresInput.addEventListener("change", () => {
      this.modalEl.toggleClass("is-showing-scores", this.scoresInput.checked);
      void this.host.saveShowScores(this.scoresInput.checked);
    });
    this.modalEl.toggleClass("is-showing-scores", this.scoresInput.checked);
    // The line is seen, not spoken: it is cleared and rewritten on every search, which a live region
    // would read out after each keystroke. What is spoken goes to `liveEl`.
    this.statusEl = createDiv({ cls: "vault-research-search-status" });
    this.resultContainerEl.insertAdjacentElement("beforebegin", this.statusEl);
    this.liveEl = this.modalEl.createDiv({ cls: "vault-research-visually-hidden", attr: { role: "status", "aria-live": "polite" } });
    this.offerEl = createDiv({ cls: "vault-research-search-offer" });
    this.offerEl.hide();
    this.resultContainerEl.insertAdjacentElement("afterend", this.offerEl);
    this.stopListbox = this.announceTheList();
  }

  /**
   * The query box as a combobox over the list, named, with the keys the line under the list shows
   * said in words: a screen reader heard a text box and nothing of the notes the arrows went through.
   */
  private announceTheList(): () => void {
    this.inputEl.setAttr("aria-label", "Search your notes");
    const keys = this.modalEl.createDiv({ cls: "vault-research-visually-hidden", text: searchKeys(), attr: { id: nextSuggestionId() } });
    this.inputEl.setAttr("aria-describedby", keys.id);
    return suggestionListbox(this.inputEl, this.resultContainerEl, "Notes found");
  }

  override onClose(): void {
    // A query still in its typing pause is not searched once the modal is gone: it would reach the
    // embedding (or chat) model and the query log after the user had dismissed it.
    this.searchCount++;
    this.pending?.abort();
    this.dial.destroy();
    this.stopListbox();
    super.onClose();
  }

  async getSuggestions(query: string): Promise<DialResult[]> {
    const count = ++this.searchCount;
    const results = await this.search(query, count);
    // A search a newer one (or the close) overtook says nothing, and shows nothing: the app lists
    // whatever it answers for the same query, and a dial moved during Rerank's long typing pause
    // let its empty answer wipe the list Lexical had shown since.
    if (count !== this.searchCount) return overtaken();
    this.sayAloud(this.outcomeWords(query, results));
    return results;
  }

  private async search(query: string, count: number): Promise<DialResult[]> {
    this.pending?.abort();
    this.pending = null;
    this.offerEl.hide();
    if (query.trim() === "") {
      this.say("");
      this.emptyStateText = "Type to search your vault.";
      return [];
    }
    // The dial scrubs only the keys secret storage holds: one it does not hold (another service's)
    // would go to the embedding and chat models and into the query log, as research refuses to let it.
    if (keyInQuestion(query)) {
      this.say("");
      this.emptyStateText = KEY_IN_QUERY;
      return [];
    }
    const level = this.dial.level();
    const runs = levelThatWillRun(level, this.host.readiness());
    await new Promise((resolve) => window.setTimeout(resolve, this.typingPauseMs[runs]));
    if (count !== this.searchCount) return [];
    const controller = new AbortController();
    this.pending = controller;
    this.say(runningWords(runs), true);
    try {
      // Asked for the closest notes: the word search that found nothing is not run (and logged) again.
      const known = this.closestAskedFor === query && this.noMatch?.query === query && this.noMatch.level === level ? this.noMatch : null;
      const response = known ?? (await this.host.search({ query, level, limit: RESULT_LIMIT, surface: "search-modal", signal: controller.signal }));
      if (count !== this.searchCount) return [];
      if (response.results.length > 0 || response.ranLevel > 1) return this.shown(response, response.results.length === 0 ? "No notes match." : "");
      return await this.closestInstead(query, response, count, controller.signal);
    } catch (error) {
      if (count !== this.searchCount) return [];
      this.say("");
      this.emptyStateText = `Search failed: ${errorMessage(error)}`;
      return [];
    } finally {
      if (this.pending === controller) this.pending = null;
    }
  }

  renderSuggestion(result: DialResult, el: HTMLElement): void {
    // An option is named by all it shows, title first: speech input says what it sees (a name of the
    // title alone left the path and snippet out of it), and a hidden score is in no name.
    el.addClass("vault-research-search-result");
    el.createDiv({ cls: "vault-research-search-result-title", text: result.title, attr: { dir: "auto" } });
    el.createDiv({ cls: "vault-research-search-result-path", text: result.path, attr: { dir: "auto" } });
    const section = result.section;
    const where = section ? sectionWords(section) : "";
    if (where) el.createDiv({ cls: ["vault-research-search-result-heading", ...(section?.from === "section_vector" ? ["is-by-meaning"] : [])], text: where, attr: { dir: "auto" } });
    // A title match's words are the title, already shown.
    if (section?.snippet && section.unit !== "title") {
      const lexicalHit = section.from === "lexical" ? result.lexical?.sections[0] : undefined;
      renderSnippet(el.createDiv({ cls: "vault-research-search-result-snippet", attr: { dir: "auto" } }), section.snippet, lexicalHit?.snippet === section.snippet ? lexicalHit.highlights : []);
    }
    // The vault's language brought in a note that has none of the question's words: say why it is here.
    const lexical = result.lexical?.explanation;
    if (lexical?.vaultLanguage && lexical.matchedTerms.length === 0) el.createDiv({ cls: "vault-research-search-result-closeness", text: BY_MEANING });
    if (this.closest.has(result)) {
      const similarity = similarityOf(result);
      el.createDiv({ cls: "vault-research-search-result-closeness", text: similarity === null ? `Not a match · spelled alike, score ${result.score.toFixed(2)}` : `Not a match · similarity ${similarity.toFixed(2)}` });
    }
    renderDialScores(el.createDiv({ cls: "vault-research-search-scores" }), result);
  }

  onChooseSuggestion(result: DialResult, evt: MouseEvent | KeyboardEvent): void {
    const response = this.responses.get(result);
    if (response) this.host.recordClick(response, result.key).catch((error: unknown) => console.warn("Vault Research: the click was not logged", error));
    const section = result.section;
    const heading = section?.unit === "section" ? (section.headingPath.at(-1) ?? "") : "";
    void openAtSection(this.app, result.path, section ? { heading, line: section.line } : undefined, Keymap.isModEvent(evt));
  }

  /** The dial moved: the same query again at the new level. */
  private searchAgain(): void {
    this.inputEl.dispatchEvent(new Event("input"));
  }

  /** Level 1 found nothing: the notes closest by meaning, once asked for, if a vector level can run, said to be no match. */
  private async closestInstead(query: string, response: DialResponse, count: number, signal: AbortSignal): Promise<DialResult[]> {
    const readiness = this.host.readiness();
    const vectorLevel = levelThatWillRun(3, readiness);
    if (vectorLevel === 1) {
      const reason = notReadyReason(readiness.find((r) => r.level === 2)?.notice ?? null);
      return this.closestBySpelling(query, response, count, signal, `Finding the closest notes by meaning needs Hybrid, which is not ready (${reason}).`);
    }
    this.noMatch = response;
    if (this.closestAskedFor !== query) {
      this.offerClosest(query, vectorLevel);
      return this.closestBySpelling(query, response, count, signal, "");
    }
    this.say(runningWords(vectorLevel), true);
    const closest = await this.host.search({ query, level: vectorLevel, limit: CLOSEST_COUNT, surface: "search-modal", signal });
    if (count !== this.searchCount) return [];
    // It fell back to words, which had found nothing: that says no note is close, which nobody measured.
    if (closest.ranLevel === 1) {
      const why = joinSentences(...closest.notices.map((n) => n.message));
      this.say(`No note contains these words. The closest notes by meaning could not be found${why ? `: ${why}` : "."}`);
      this.emptyStateText = "No notes match.";
      return [];
    }
    // The closest first, by the similarity shown beside each.
    const results = closest.results.slice(0, CLOSEST_COUNT).sort((a, b) => (similarityOf(b) ?? 0) - (similarityOf(a) ?? 0));
    for (const r of results) {
      this.responses.set(r, closest);
      this.closest.add(r);
    }
    this.say(results.length > 0 ? `No note contains these words. The ${results.length} closest by meaning (${DIAL_LEVEL_NAMES[closest.ranLevel]}), with their low scores:` : "No note contains these words.");
    this.emptyStateText = "No notes match.";
    return results;
  }

  /** No vector level can run: the closest notes by spelling (no model, no network), said to be no match. */
  private async closestBySpelling(query: string, response: DialResponse, count: number, signal: AbortSignal, byMeaning: string): Promise<DialResult[]> {
    const closest = await this.host.search({ query, level: 1, limit: CLOSEST_COUNT, surface: "search-modal", signal, loose: true });
    if (count !== this.searchCount) return [];
    const results = closest.results.slice(0, CLOSEST_COUNT);
    if (results.length === 0) return this.shown(response, byMeaning ? `No note contains these words. ${byMeaning}` : "No note contains these words.");
    for (const r of results) {
      this.responses.set(r, closest);
      this.closest.add(r);
    }
    // The word search may have stood in for a level that could not run: that is said first, as `shown` says it.
    const words = [...levelLines(response), `No note contains these words. The ${results.length} closest by spelling, with their low scores.`, ...(byMeaning ? [byMeaning] : [])];
    this.say(joinSentences(...words));
    this.emptyStateText = "No notes match.";
    return results;
  }

  private offerClosest(query: string, vectorLevel: DialLevel): void {
    this.offerEl.empty();
    const button = this.offerEl.createEl("button", { cls: "vault-research-search-offer-button", text: `Show the ${CLOSEST_COUNT} closest notes by meaning`, attr: { type: "button" } });
    this.offerEl.createSpan({ cls: "vault-research-search-offer-note", text: `${DIAL_LEVEL_NAMES[vectorLevel]}: the query goes to your embedding model.` });
    button.addEventListener("click", () => {
      this.closestAskedFor = query;
      this.inputEl.focus();
      this.searchAgain();
    });
    this.offerEl.show();
  }

  /** Shows a finished search: which level ran and why, its notices, and the results. */
  private shown(response: DialResponse, emptyText: string): DialResult[] {
    for (const r of response.results) this.responses.set(r, response);
    const lines = levelLines(response);
    const byMeaningOnly = response.results.length > 0 && response.results.every((r) => !r.explanation.lanes.some((l) => l.lane === "lexical"));
    if (byMeaningOnly) lines.push("No note contains these words; these were found by meaning alone.");
    this.say(joinSentences(...lines));
    if (emptyText) this.emptyStateText = emptyText;
    return response.results;
  }

  /**
   * How a search ended, in words: how many notes it lists and the status line, or when nothing is
   * listed, what the list says instead (no match, what finding the closest notes needs, the failure).
   * The closest notes are counted by the line itself. Without the count, a search that found notes
   * said nothing, and a screen reader's user typing in the box could not tell it had ended.
   */
  private outcomeWords(query: string, results: readonly DialResult[]): string {
    const counted = results.length > 0 && !results.some((r) => this.closest.has(r));
    const shownLine = this.statusEl.textContent ?? "";
    const line = counted ? joinSentences(foundWords(results.length), shownLine) : shownLine;
    const empty = results.length === 0 && query.trim() !== "" ? this.emptyStateText : "";
    // Either alone is said as shown (the line may end with ":", the list following it).
    return line === "" || empty === "" ? line || empty : joinSentences(line, empty);
  }

  /** Speaks `text` once: the same words after the next keystroke's search are not read out again. */
  private sayAloud(text: string): void {
    if (text === this.saidAloud) return;
    this.saidAloud = text;
    this.liveEl.setText(text);
  }

  private say(text: string, busy = false): void {
    this.statusEl.setText(text);
    this.statusEl.toggle(text !== "");
    this.statusEl.toggleClass("is-busy", busy);
    this.modalEl.toggleClass("is-searching", busy);
    this.resultContainerEl.setAttr("aria-busy", busy ? "true" : "false");
  }
}

/** "1 note found.", "12 notes found.": what a search that lists notes says first. */
function foundWords(count: number): string {
  return `${count} ${count === 1 ? "note" : "notes"} found.`;
}

/** Which level ran when it was not the one asked for, and the search's notices, one sentence each. */
function levelLines(response: DialResponse): string[] {
  const lines: string[] = [];
  if (response.ranLevel !== response.level) lines.push(`Ran at ${DIAL_LEVEL_NAMES[response.ranLevel]} instead of ${DIAL_LEVEL_NAMES[response.level]}.`);
  for (const notice of response.notices) lines.push(notice.message);
  return lines;
}

/**
 * Writes `snippet` into `el` as text, wrapping each highlighted span in a marked span. Never HTML.
 * Its line breaks are where the note's blocks end (a paragraph, a table row, a code block), shown
 * as lines by the stylesheet; the "…" that says blocks were left out above goes in front of the
 * first one rather than on a line of its own, which a card or a two-line suggestion cannot spare.
 */
export function renderSnippet(el: HTMLElement, raw: string, highlights: readonly Highlight[]): void {
  // One character for one: the highlights' offsets stay right.
  const snippet = raw.startsWith("…\n") ? `… ${raw.slice(2)}` : raw;
  let at = 0;
  for (const [start, end] of mergeHighlights(highlights, snippet.length)) {
    if (start > at) el.appendText(snippet.slice(at, start));
    // A mark, not a span: read as highlighted, and drawn in the theme's own colours in a contrast theme.
    el.createEl("mark", { cls: "vault-research-match", text: snippet.slice(start, end) });
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

// Characters that end or change the meaning of a link's path or heading part.
const UNLINKABLE = /[#|^[\]]/;

/**
 * Opens a note scrolled to a section: by heading link where possible, by line otherwise. A note
 * that is gone (moved or deleted since it was found) is said to be gone: the app's link opener
 * would make an empty note in its place, which is no note the user asked for.
 */
export async function openAtSection(app: App, path: string, section: Pick<SectionHit, "heading" | "line"> | undefined, newLeaf: PaneType | boolean = false): Promise<void> {
  const file = app.vault.getFileByPath(path);
  if (!file) {
    new Notice(`${fileTitle(path)} is no longer in your vault: it was moved or deleted.`);
    return;
  }
  // A link to `C# tips.md` would be read as the heading " tips.md" of a note named `C`.
  const linkable = !UNLINKABLE.test(path);
  if (!section || section.heading === "") {
    if (linkable) await app.workspace.openLinkText(path, "", newLeaf);
    else await app.workspace.getLeaf(newLeaf).openFile(file);
    return;
  }
  if (linkable && !UNLINKABLE.test(section.heading)) {
    await app.workspace.openLinkText(`${path}#${section.heading}`, "", newLeaf);
    return;
  }
  // The editor counts lines from 0; sections count them from 1.
  await app.workspace.getLeaf(newLeaf).openFile(file, { eState: { line: Math.max(0, section.line - 1) } });
}

