// What the index's state reads as: the status bar's text and tooltip, and the list of problems
// behind a click on it. Plain data in, text out, below both the plugin (which collects the issues)
// and the UI (which renders them), so neither has to reach into the other.
import type { IndexStatus } from "./types";

/** Whether the vault's language is being learned (a first time, or again) right now. */
export function languageLearning(status: IndexStatus): boolean {
  return status.vaultLanguage === "learning" || status.vaultLanguage === "relearning";
}

/** Whether search has the vault's language's meanings to use (learned, or learned before and being learned again). */
export function languageServes(status: IndexStatus): boolean {
  return status.vaultLanguage === "ready" || status.vaultLanguage === "relearning";
}

/** A problem worth showing: a note that indexed oddly, or something that went wrong around the index. */
export interface IndexIssue {
  /** The note concerned, when there is one. */
  path?: string;
  message: string;
}

export interface IndexStatusText {
  /** Short text for the status bar. */
  text: string;
  /** Longer text for the tooltip. */
  tooltip: string;
  problemCount: number;
}

/** Everything worth listing: the index's own note problems first, then the plugin's. */
export function indexIssues(status: IndexStatus | null, pluginIssues: readonly IndexIssue[]): IndexIssue[] {
  const fromIndex = (status?.problems ?? []).map(({ path, problem }) => ({ path, message: problem.message }));
  return [...fromIndex, ...pluginIssues];
}

/** What the vault-language lane adds, or will, in the tooltip's words. A relearning keeps the meanings
 * learned before in use (language-lane.ts `relearn`): "words alone" would be untrue then. */
const LANGUAGE_TOOLTIP: Record<NonNullable<IndexStatus["vaultLanguage"]>, string> = {
  learning: "Learning which words this vault uses alike, on this device; search uses words alone until then",
  relearning: "Learning again which words this vault uses alike, on this device, since much of it changed; search uses what it learned before until then",
  ready: "Search also finds notes that say it in other words, learned from this vault",
};

export function describeIndexStatus(status: IndexStatus | null, pluginIssues: readonly IndexIssue[], locale?: string): IndexStatusText {
  const problemCount = indexIssues(status, pluginIssues).length;
  const text = indexStatusLine(status, problemCount, locale);

  const language = status?.vaultLanguage;
  const tooltipParts = [
    lastUpdatedWords(status?.lastUpdated, locale),
    ...(language ? [LANGUAGE_TOOLTIP[language]] : []),
    problemCount > 0 ? "Click to see the problems" : "Click for details",
  ];
  return { text, tooltip: tooltipParts.join(". ") + ".", problemCount };
}

/** The status bar's words for the index: its state, what it is learning, and how many problems (`problemCount`, counted by the caller). */
export function indexStatusLine(status: IndexStatus | null, problemCount: number, locale?: string): string {
  const notes = status ? `${status.notes.toLocaleString(locale)} ${status.notes === 1 ? "note" : "notes"}` : "";
  let text: string;
  switch (status?.state ?? "empty") {
    case "building":
      text = status && status.notes > 0 ? `Indexing… ${notes}` : "Indexing…";
      break;
    case "updating":
      text = `Updating index… ${notes}`;
      break;
    case "ready":
      text = `${notes} indexed`;
      break;
    case "empty":
      text = status?.lastUpdated ? "No notes indexed" : "Index not built yet";
      break;
  }
  if (status?.state === "ready" && status.vaultLanguage === "learning") text += " · learning its words…";
  if (status?.state === "ready" && status.vaultLanguage === "relearning") text += " · learning its words again…";
  if (problemCount > 0) text += ` · ${problemCount} ${problemCount === 1 ? "problem" : "problems"}`;
  return text;
}

/** When the index was last updated, in the user's date format: the tooltip's first sentence and the problems box's first line. */
export function lastUpdatedWords(lastUpdated: number | null | undefined, locale?: string): string {
  return lastUpdated ? `Last updated ${new Date(lastUpdated).toLocaleString(locale)}` : "Not updated yet";
}
