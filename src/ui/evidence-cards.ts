// Evidence under an answer, in two groups that never mix: vault rows, then outside-vault rows,
// each group under its counter. Web text is written as text (never HTML, never markdown).
import { setIcon } from "obsidian";
import type { OutsideVaultRow, ResearchPack, VaultRow } from "../evidence/research-pack";
import { alsoFoundByLabel, outsideVaultCounter, outsideVaultLabel, savedPageLabel, vaultEvidenceCounter, type OutsideStore } from "../evidence/labels";
import { renderPagePassages } from "./page-passages";
import type { PromotionResult } from "../promote/promote";
import { hasProviderExcerpt } from "../promote/promoted-note";
import type { Highlight } from "../index/types";
import { renderSnippet } from "./search-modal";
import { snippetAround as sectionSnippet } from "../index/section-hits";
import { savedWords } from "./promotion-words";
import { renderWhy } from "./why-matched";
import { isoDay } from "../notes/source-note";
import { fileTitle } from "../index/markdown";
import { webOutcomeSaysMore, webOutcomeSentence, type WebOutcome } from "../notes/web-outcome";

/** Characters of section or page text shown on a card. */
const SNIPPET_CHARS = 280;

export interface EvidenceActions {
  openNote(row: VaultRow, evt: MouseEvent): void;
  openUrl(row: OutsideVaultRow, evt: MouseEvent): void;
  /** "Add to vault"; the button is shown only when promotion is available. */
  promote?: (row: OutsideVaultRow) => Promise<PromotionResult>;
  /** Opens a vault note by path: the note a promotion wrote, or the one that already had the page. */
  openPath?: (path: string, evt: MouseEvent) => void;
  /**
   * Moves a note a promotion just wrote to the trash, so the page can be fetched again; false when
   * it was kept (it changed since, or is gone). Without it, an excerpt-only note offers no retry.
   */
  discardPromoted?: (path: string) => Promise<boolean>;
  /** Says something in the panel's status line (its one live region). */
  announce?: (text: string) => void;
}

export interface EvidenceOptions {
  /** Show the outside group even when empty (the run was allowed to use the web). */
  outsideAsked: boolean;
  /**
   * How the run's web search went (notes/web-outcome.ts), said under the outside counter in the trace
   * note's words when the counter does not say it all: not searched and why, failed, found nothing,
   * stopped. The counter names only the sources that answered: "0 rows" from a search that failed
   * read as the web having nothing.
   */
  webOutcome?: WebOutcome;
  /** Say once, under the outside counter, what "ephemeral" means. */
  explainEphemeral?: boolean;
  /** The vault has no evidence: its nearest rows are shown folded, as what came closest. */
  vaultRowsAreClosestOnly?: boolean;
}

/** Ids for `aria-describedby` and `aria-labelledby`: one panel shows many turns, each with its cards. */
let idCount = 0;
function nextId(): string {
  return `vault-research-evidence-${++idCount}`;
}

/**
 * A group of cards named by its counter: a screen reader says "Outside vault: 3 rows from Brave"
 * on entering it, so a title reached by Tab alone is known to be a vault note or a web page.
 */
function labelledGroup(group: HTMLElement, counter: string): void {
  const id = nextId();
  group.createDiv({ cls: "vault-research-counter", text: counter, attr: { id } });
  group.setAttrs({ role: "group", "aria-labelledby": id });
}

export const EPHEMERAL_LEGEND = "Ephemeral: used for this question only and not saved. Add to vault keeps a page as a note.";

export function renderEvidence(parent: HTMLElement, pack: ResearchPack, actions: EvidenceActions, options: EvidenceOptions): void {
  const root = parent.createDiv({ cls: "vault-research-evidence" });

  if (options.vaultRowsAreClosestOnly) {
    if (pack.evidence.length > 0) {
      const closest = root.createEl("details", { cls: "vault-research-evidence-group is-vault is-closest" });
      closest.createEl("summary", { cls: "vault-research-counter", text: `Closest notes: ${pack.evidence.length}, none about this question` });
      for (const row of pack.evidence) renderVaultCard(closest, row, actions);
    }
  } else {
    const vault = root.createDiv({ cls: "vault-research-evidence-group is-vault" });
    labelledGroup(vault, vaultEvidenceCounter(pack.evidence.length));
    for (const row of pack.evidence) renderVaultCard(vault, row, actions);
  }

  if (pack.external_evidence.length === 0 && !options.outsideAsked) return;
  const outside = root.createDiv({ cls: "vault-research-evidence-group is-outside" });
  const found = pack.coverage.external_by_provider.filter((p) => p.count > 0).map((p) => p.key);
  const answered = [...new Set(pack.coverage.external_freshness.map((f) => f.provider))];
  const providers = found.length > 0 ? found : pack.external_evidence.length > 0 ? pack.external_evidence.map((r) => r.provider) : answered;
  labelledGroup(outside, outsideVaultCounter(pack.external_evidence.length, providers));
  const outcome = options.webOutcome;
  if (outcome && outcome.kind !== "not_allowed" && webOutcomeSaysMore(outcome)) {
    const searched = outcome.kind === "searched";
    outside.createDiv({ cls: ["vault-research-outside-outcome", searched ? "vault-research-outside-failed" : "vault-research-outside-not-asked"], text: webOutcomeSentence(outcome) });
  }
  if (options.explainEphemeral && pack.external_evidence.length > 0) outside.createDiv({ cls: "vault-research-legend", text: EPHEMERAL_LEGEND });
  for (const row of pack.external_evidence) renderOutsideCard(outside, row, actions);
}

export function renderVaultCard(parent: HTMLElement, row: VaultRow, actions: EvidenceActions): HTMLElement {
  const card = parent.createDiv({ cls: "vault-research-card is-vault", attr: { "data-source-key": row.source_key } });
  const title = card.createEl("button", { cls: "vault-research-card-title", text: row.title, attr: { type: "button", dir: "auto", id: nextId() } });
  title.addEventListener("click", (evt) => actions.openNote(row, evt));
  card.createDiv({ cls: "vault-research-card-path", text: row.note_path, attr: { dir: "auto" } });
  if (row.saved_from !== undefined) card.createDiv({ cls: "vault-research-saved-page", text: savedPageLabel(row.saved_from) });
  const best = row.sections[0];
  if (best && best.heading !== "") card.createDiv({ cls: "vault-research-card-heading", text: best.heading, attr: { dir: "auto" } });
  if (best) {
    // The index marks whole matched words (stems and typos included); older packs only have terms.
    const { snippet, highlights } = best.highlights ? { snippet: best.text, highlights: best.highlights } : snippetAround(best.text, row.retrieval.matched_terms);
    if (snippet) renderSnippet(card.createDiv({ cls: "vault-research-card-snippet", attr: { dir: "auto" } }), snippet, highlights);
  }
  if (row.also_found_by && row.also_found_by.length > 0) {
    card.createDiv({ cls: "vault-research-also-found", text: alsoFoundByLabel(row.also_found_by) });
  }
  renderWhy(card, row.retrieval, title);
  return card;
}

export function renderOutsideCard(parent: HTMLElement, row: OutsideVaultRow, actions: EvidenceActions): HTMLElement {
  const card = parent.createDiv({ cls: "vault-research-card is-outside", attr: { "data-source-key": row.source_key } });
  const store = row.retrieval.lanes[0]?.store ?? "ephemeral";
  const badge = card.createDiv({ cls: "vault-research-badge" });
  setIcon(badge.createSpan({ cls: "vault-research-badge-icon" }), "globe");
  const badgeText = badge.createSpan({ cls: "vault-research-badge-text", text: outsideVaultLabel(row.provider, store), attr: { id: nextId() } });
  // The label is read with the title wherever the title is reached: Tab skips the badge above it.
  const title = card.createEl("button", { cls: "vault-research-card-title", text: row.title || row.url, attr: { type: "button", dir: "auto", id: nextId(), "aria-describedby": badgeText.id } });
  title.addEventListener("click", (evt) => actions.openUrl(row, evt));
  const meta = card.createDiv({ cls: "vault-research-card-path" });
  meta.createSpan({ cls: "vault-research-card-domain", text: row.domain });
  const date = isoDay(row.published_at);
  if (date) meta.createSpan({ cls: "vault-research-card-date", text: date });
  const text = row.content_sections.find((s) => s.role === "external_snippet") ?? row.content_sections[0];
  if (text) card.createDiv({ cls: "vault-research-card-snippet", text: clip(text.text, SNIPPET_CHARS), attr: { dir: "auto" } });
  if (row.also_found_by.length > 0) card.createDiv({ cls: "vault-research-also-found", text: alsoFoundByLabel(row.also_found_by) });
  renderPagePassages(card, row);
  if (actions.promote && store === "ephemeral") {
    const promote = actions.promote;
    renderAddToVault(card, title, actions, () => promote(row), (next) => badgeText.setText(outsideVaultLabel(row.provider, next)), hasProviderExcerpt(row));
  }
  renderWhy(card, row.retrieval, title);
  return card;
}

/**
 * "Add to vault" and what became of it: progress while the page is fetched, then a link to the
 * saved note and what it holds (the page, or only the provider's excerpt and why, with a retry),
 * the note that already had the page, or the error in words with a retry.
 */
function renderAddToVault(card: HTMLElement, title: HTMLElement, actions: EvidenceActions, promote: () => Promise<PromotionResult>, setStore: (store: OutsideStore) => void, hasExcerpt: boolean): void {
  const area = card.createDiv({ cls: "vault-research-promote" });
  // Every web card has one: named alone, five read "Add to vault" and nothing says which page.
  const add = area.createEl("button", { cls: "vault-research-card-action", text: "Add to vault", attr: { type: "button", "aria-describedby": title.id } });
  const status = area.createDiv({ cls: "vault-research-promote-status" });
  const say = (text: string) => {
    status.setText(text);
    actions.announce?.(text);
  };
  /** The note of an attempt that saved only the excerpt, while "Fetch the page again" is offered. */
  let excerptOnly: string | null = null;
  let busy = false;

  const attempt = async (): Promise<void> => {
    // Marked busy rather than disabled: a disabled or removed button drops keyboard focus to the
    // top of the app, so a keyboard user who pressed it is led on to what it became instead.
    busy = true;
    add.setAttr("aria-disabled", "true");
    add.removeAttribute("aria-label");
    add.setText("Adding…");
    card.addClass("is-promoting");
    status.removeClass("is-error");
    area.querySelectorAll(".vault-research-promote-warning").forEach((w) => w.remove());
    say("Fetching the page and saving it as a note…");
    const result = await promote().catch((error: unknown): PromotionResult => ({
      status: "failed",
      error: { kind: "write_failed", message: String(error) },
      message: `The page could not be added to the vault: ${error instanceof Error ? error.message : String(error)}`,
    }));
    card.removeClass("is-promoting");
    busy = false;
    // Asked now, not when pressed: a user who went on to read while the page was fetched keeps their place.
    const hadFocus = add.ownerDocument.activeElement === add;
    add.removeAttribute("aria-disabled");
    if (result.status === "failed") {
      add.setText("Try again");
      status.addClass("is-error");
      say(result.message);
      return;
    }
    showSaved(area, status, result, actions, hasExcerpt);
    actions.announce?.(status.textContent ?? "");
    if (result.status === "created") {
      setStore("promoted");
      card.addClass("is-promoted");
    }
    if (result.status === "created" && result.extractStatus.kind !== "extracted" && actions.discardPromoted) {
      excerptOnly = result.notePath;
      // After the words that say why, so it is read as the answer to them.
      area.appendChild(add);
      add.setText("Fetch the page again");
      add.setAttr("aria-label", "Fetch the page again (replaces the note just saved)");
      if (hadFocus) add.focus();
    } else {
      add.remove();
      if (hadFocus) status.querySelector<HTMLElement>(".vault-research-promote-link")?.focus();
    }
  };
  // An excerpt-only note is replaced by a fresh attempt, never overwritten: it goes to the trash first.
  const fetchAgain = async (path: string): Promise<void> => {
    if (await actions.discardPromoted?.(path)) {
      excerptOnly = null;
      await attempt();
    } else {
      say("The note was kept: it changed since it was saved, or is gone.");
    }
  };
  add.addEventListener("click", () => {
    if (!busy) void (excerptOnly ? fetchAgain(excerptOnly) : attempt());
  });
}

/** "Saved as [[Name]]", with what the note holds when it is not the page itself. */
function showSaved(area: HTMLElement, status: HTMLElement, result: Exclude<PromotionResult, { status: "failed" }>, actions: EvidenceActions, hasExcerpt: boolean): void {
  status.empty();
  status.appendText(result.status === "created" ? "Saved as " : "Already in your vault: ");
  noteLink(status, result.notePath, actions.openPath);
  if (result.status !== "created") return;
  const holds = savedWords(result.extractStatus, hasExcerpt);
  if (holds) status.appendText(` ${holds}`);
  for (const warning of result.warnings) area.createDiv({ cls: "vault-research-promote-warning", text: warning });
}

/** `[[Name]]` that opens the note, as Obsidian's own internal links look. */
function noteLink(parent: HTMLElement, path: string, open: EvidenceActions["openPath"]): HTMLElement {
  const link = parent.createEl("a", { cls: "internal-link vault-research-promote-link", text: `[[${fileTitle(path)}]]`, href: "#", attr: { "data-href": path } });
  link.addEventListener("click", (evt) => {
    evt.preventDefault();
    open?.(path, evt);
  });
  return link;
}

/**
 * The snippet of a section that came without marks (one found by its vector), with every matched term
 * marked where a word starts. Its text is the index's snippet, whose line breaks are where the note's
 * blocks end; a longer one is cut by the index's own rule (`section-hits.ts`): from where the first
 * match's sentence or its list's lead-in starts, as the search, research and the CLI cut theirs, never
 * a window of words of its own that began mid-sentence or lost the lead-in its items hang on.
 */
export function snippetAround(text: string, terms: readonly string[]): { snippet: string; highlights: Highlight[] } {
  // Each block's end a blank line, as in a shown section, which the index's rule reads as one line break.
  const section = text.replace(/\s+/g, (run) => (run.includes("\n") ? "\n\n" : " ")).trim();
  return sectionSnippet(section, termSpans(section, terms), SNIPPET_CHARS);
}

/** Where each term starts a word of `text` (stems and typos are the index's to mark, not these). */
function termSpans(text: string, terms: readonly string[]): { start: number; end: number }[] {
  const lower = text.toLowerCase();
  const spans: { start: number; end: number }[] = [];
  for (const term of terms.map((t) => t.toLowerCase()).filter((t) => t.length > 0)) {
    for (let i = lower.indexOf(term); i >= 0; i = lower.indexOf(term, i + term.length)) {
      if (i === 0 || !/[\p{L}\p{N}]/u.test(lower[i - 1])) spans.push({ start: i, end: i + term.length });
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}

