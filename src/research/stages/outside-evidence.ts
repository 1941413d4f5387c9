// Turning web results into outside-vault rows, and keeping them apart from the vault:
// - a page the vault already holds (a note's `source`/`url` property is that page) collapses into
//   that note's `src:` row, which gains an "also found by <provider>" signal (a note that can no
//   longer be read holds nothing: the page stays the web's);
// - the same page from two providers or two queries is one row (first finder keeps the key; the
//   page's own address wins over an AMP, mobile, http or tracked one, `isLesserAddress`).
//   "The same page" is the dispatcher's merging rule (`samePageKey`: http and https, `www.`/`m.`,
//   AMP copies), so a page met as `http://www.x/post` is the note saved from `https://x/post`;
// - rows are ranked conservatively and every one says why it is there;
// - their text is cut to the run's token budget, and marked when cut.
import type { VaultIndex } from "../../index/vault-index";
import type { NoteStore } from "../../ports";
import type { MergedResult } from "../../websearch/search-providers";
import type { ContentSection, OutsideVaultRow, QueryPlan, Signal, VaultRow } from "../../evidence/research-pack";
import { noteSourceKey, outsideSourceKey } from "../../evidence/keys";
import { alsoFoundByLabel, outsideVaultLabel, providerDisplayName } from "../../evidence/labels";
import { cutText } from "../../text/cut-text";
import { roundTo } from "../../text/numbers";
import { indexedNotesOfPage } from "../../promote/promote";
import { isLesserAddress, samePageKey } from "../../websearch/canonical-url";
import { signalsInWords } from "../../websearch/source-signals";
import { readNotes } from "../../index/read-notes";
import { indexQueryFor, toVaultRow } from "./local-retrieval";
import { shownSections } from "./shown-sections";

export interface DedupeDecision {
  url: string;
  provider: string;
  /** "local_source": the vault has a note for this page; "duplicate": another result had it. */
  kind: "local_source" | "duplicate";
  note_path?: string;
}

export interface OutsideEvidence {
  rows: OutsideVaultRow[];
  /** Vault rows after collapsing: existing rows may have gained signals; new ones may have been added. */
  vaultRows: VaultRow[];
  decisions: DedupeDecision[];
  /** Results left out because `count` was reached. */
  overflow: number;
}

export interface OutsideEvidenceOptions {
  count: number;
  /** Approximate tokens for all outside text together (4 characters a token). */
  tokenBudget: number;
  /** The run's clock, for recency signals (ms since the epoch). */
  now: number;
}

/** Domains whose pages are the primary source for what they describe. */
const PRIMARY_HOSTS = /(^|\.)(github\.com|gitlab\.com|arxiv\.org|wikipedia\.org|developer\.mozilla\.org|w3\.org|ietf\.org|rfc-editor\.org|python\.org|nodejs\.org|npmjs\.com|docs\.rs|readthedocs\.io)$/;
const DOCS_HOST = /^(docs|developer|developers|api|learn|help|support)\./;
const DOCS_PATH = /\/(docs?|documentation|reference|manual|guide|changelog|releases?)(\/|$)/i;

export async function buildOutsideEvidence(
  results: MergedResult[],
  plan: QueryPlan,
  vaultRows: VaultRow[],
  index: VaultIndex,
  store: NoteStore,
  options: OutsideEvidenceOptions,
): Promise<OutsideEvidence> {
  const decisions: DedupeDecision[] = [];
  const updatedVault = vaultRows.map((r) => ({ ...r, retrieval: { ...r.retrieval, signals: [...r.retrieval.signals] } }));
  const updatedByPath = new Map(updatedVault.map((r) => [r.note_path, r]));
  // What each page became the first time: a vault note's row, or a result kept (a copy, so that
  // the finders of a later query can join it).
  const seen = new Map<string, { kind: "vault"; note_path: string; row: VaultRow } | { kind: "outside"; result: MergedResult }>();
  const kept: MergedResult[] = [];
  const notesHolding = indexedNotesOfPage(index);
  // The row of a note holding a page: the pack's own, or one added after every row so far (null: the note cannot be read).
  const rowOfNote = async (path: string): Promise<VaultRow | null> => {
    const known = updatedByPath.get(path);
    if (known) return known;
    const added = await sourceNoteRow(path, plan, index, store, updatedVault.length);
    if (added) {
      updatedVault.push(added);
      updatedByPath.set(path, added);
    }
    return added;
  };

  for (const result of results) {
    const canonical = result.canonicalUrl;
    const page = samePageKey(canonical) ?? canonical;
    const finders = [result.provider, ...result.alsoFoundBy];
    const first = seen.get(page);
    if (first?.kind === "outside") {
      // The same page from the run's other query: one row, which says who else found it.
      first.result.alsoFoundBy = [...new Set([...first.result.alsoFoundBy, ...finders])].filter((p) => p !== first.result.provider);
      takeBetterAddress(first.result, result);
      decisions.push({ url: result.url, provider: result.provider, kind: "duplicate" });
      continue;
    }
    if (first?.kind === "vault") {
      // Kept as the vault's note the first time, so again: the trace must not say a web row kept it.
      first.row.also_found_by = Array.from(new Set([...(first.row.also_found_by ?? []), ...finders]));
      decisions.push({ url: result.url, provider: result.provider, kind: "local_source", note_path: first.note_path });
      continue;
    }
    const path = notesHolding(canonical)[0];
    // A note gone from the vault since it was indexed holds nothing: the page is the web's again.
    const row = path === undefined ? null : await rowOfNote(path);
    if (path !== undefined && row) {
      decisions.push({ url: result.url, provider: result.provider, kind: "local_source", note_path: path });
      seen.set(page, { kind: "vault", note_path: path, row });
      row.also_found_by = Array.from(new Set([...(row.also_found_by ?? []), ...finders]));
      row.retrieval.signals.push({
        name: "also_found_by",
        detail: `${alsoFoundByLabel(finders)}: the web search returned this note's own source (${canonical})`,
        weight: 0,
      });
      continue;
    }
    const copy = { ...result, alsoFoundBy: [...result.alsoFoundBy] };
    seen.set(page, { kind: "outside", result: copy });
    kept.push(copy);
  }

  const ranked = kept.map((r) => ({ r, signals: outsideSignals(r, plan, options.now) }));
  ranked.sort((a, b) => total(b.signals) - total(a.signals));
  const chosen = ranked.slice(0, options.count);
  const charBudget = Math.max(400, options.tokenBudget * 4);
  const perRow = Math.floor(charBudget / Math.max(1, chosen.length));
  const rows = chosen.map(({ r, signals }) => toOutsideRow(r, signals, plan, perRow));
  return { rows, vaultRows: updatedVault, decisions, overflow: Math.max(0, ranked.length - chosen.length) };
}

/**
 * The page's own address over a lesser one (an AMP copy, a mobile edition, plain http, click
 * tracking), by the dispatcher's rule: the first query's `http://m.…?utm_source=…` stayed on the row,
 * to be clicked and kept as a promoted note's `source`, though the second query found the page itself.
 * The addresses as sent: a canonical URL has dropped the tracking.
 */
function takeBetterAddress(kept: MergedResult, other: MergedResult): void {
  if (!isLesserAddress(kept.url, other.url)) return;
  kept.url = other.url;
  kept.canonicalUrl = other.canonicalUrl;
  kept.domain = other.domain;
}

function total(signals: Signal[]): number {
  return signals.reduce((sum, s) => sum + s.weight, 0);
}

/** Why an outside row is in the pack, as weighted signals (their sum orders the rows). */
function outsideSignals(r: MergedResult, plan: QueryPlan, now: number): Signal[] {
  const label = providerDisplayName(r.provider);
  const signals: Signal[] = [
    { name: "provider_rank", detail: `${label} ranked it #${r.providerRank} for a query built from the question`, weight: roundTo(1 / r.providerRank, 3) },
  ];
  // What the source itself says of the result (HN points, GitHub stars, an accepted answer): shown, not weighed.
  const said = signalsInWords(r.signals);
  if (said !== "") signals.push({ name: "source_signals", detail: said, weight: 0 });
  if (r.alsoFoundBy.length > 0) {
    signals.push({ name: "several_providers", detail: alsoFoundByLabel(r.alsoFoundBy), weight: 0.3 });
  }
  const host = r.domain.toLowerCase();
  let path = "";
  try {
    path = new URL(r.canonicalUrl).pathname;
  } catch {
    path = "";
  }
  const topicWords = plan.required_terms.map((t) => t.toLowerCase().replace(/[^a-z0-9]/g, "")).filter((t) => t.length >= 3);
  if (topicWords.some((t) => host.replace(/[^a-z0-9]/g, "").includes(t))) {
    signals.push({ name: "official_site", detail: `the site ${host} is named after what was asked about`, weight: 0.5 });
  } else if (PRIMARY_HOSTS.test(host)) {
    signals.push({ name: "primary_source", detail: `${host} is a primary source`, weight: 0.3 });
  }
  if (DOCS_HOST.test(host) || DOCS_PATH.test(path)) {
    signals.push({ name: "documentation", detail: "looks like documentation or release notes", weight: 0.2 });
  }
  if (plan.freshness.flagged && r.publishedAt) {
    const age = now - Date.parse(r.publishedAt);
    if (Number.isFinite(age) && age >= 0 && age < 365 * 86_400_000) {
      const days = Math.round(age / 86_400_000);
      signals.push({ name: "recent", detail: `published ${days} day${days === 1 ? "" : "s"} ago, for a question about the current state`, weight: roundTo(0.5 * (1 - age / (365 * 86_400_000)), 3) });
    }
  }
  const text = `${r.title} ${r.snippet ?? ""} ${r.highlights.join(" ")}`.toLowerCase();
  const present = plan.required_terms.filter((t) => text.includes(t.toLowerCase()));
  if (plan.required_terms.length > 0) {
    signals.push({
      name: "query_terms",
      detail: present.length > 0 ? `mentions ${present.join(", ")}` : "mentions none of the question's content words in its snippet",
      weight: roundTo((0.5 * present.length) / plan.required_terms.length, 3),
    });
  }
  return signals;
}

function toOutsideRow(r: MergedResult, signals: Signal[], plan: QueryPlan, charBudget: number): OutsideVaultRow {
  const sections: ContentSection[] = [];
  let left = charBudget;
  const add = (role: ContentSection["role"], text: string | undefined, alreadyCut = false) => {
    const clean = (text ?? "").trim();
    if (!clean || left <= 0) return;
    const cut = clean.length > left;
    const kept = cut ? cutText(clean, left) : clean;
    left -= kept.length;
    sections.push({ role, text: kept, truncated: cut || alreadyCut });
  };
  add("external_snippet", r.snippet);
  for (const h of r.highlights) if (h.trim() && h.trim() !== r.snippet?.trim()) add("external_snippet", h);
  add("external_summary", r.summary);
  add("external_text", r.text, r.truncated === true);
  const text = sections.map((s) => s.text.toLowerCase()).join(" ");
  const matched = plan.terms.filter((t) => text.includes(t.toLowerCase()) || r.title.toLowerCase().includes(t.toLowerCase()));
  const row: OutsideVaultRow = {
    source_key: outsideSourceKey(r.provider, r.canonicalUrl),
    kind: "external",
    source_type: "external_web",
    provider: r.provider,
    label: outsideVaultLabel(r.provider, "ephemeral"),
    url: r.url,
    title: r.title || r.domain,
    domain: r.domain,
    content_sections: sections,
    retrieval: {
      score: roundTo(total(signals), 3),
      lanes: [{ name: "external_search", status: "used", provider: r.provider, store: "ephemeral" }],
      signals,
      matched_terms: matched,
      missing_terms: plan.terms.filter((t) => !matched.includes(t)),
    },
    also_found_by: [...r.alsoFoundBy],
  };
  if (r.publishedAt) row.published_at = r.publishedAt;
  return row;
}

/**
 * A vault row for a note found only because a web result was its source. Its sections are what a
 * search for the question shows of it (the question's words marked, the note's blocks apart); a note
 * holding none of its words quotes its opening, the same way, and says every word is missing.
 */
async function sourceNoteRow(path: string, plan: QueryPlan, index: VaultIndex, store: NoteStore, rank: number): Promise<VaultRow | null> {
  const info = index.note(path);
  if (!info) return null;
  const required = plan.required_terms.length > 0 ? plan.required_terms : plan.terms;
  const [found] = await index.search(indexQueryFor(plan), store, { limit: 1, sectionsPerNote: 2, keep: (p) => p === path });
  // A search that could not read the note gives it no sections.
  const searched = found && found.sections.length > 0 ? toVaultRow(found, required, [], plan.tags, index.paths()) : null;
  const [lead] = searched ? [null] : await shownSections(store, [{ path }]);
  // A note with nothing to quote (a bookmark: properties only) is still the vault's copy; one that cannot be read is not.
  if (!searched && !lead && typeof (await readNotes(store, [path]))[0] !== "string") return null;
  return {
    source_key: noteSourceKey(path, index.paths()),
    kind: "note",
    source_type: "vault_note",
    note_path: path,
    title: info.title,
    sections: searched ? searched.sections : lead ? [lead] : [],
    retrieval: {
      score: 0,
      lanes: [{ name: "source_url", status: "used" }],
      signals: [{ name: "source_url", detail: `added as vault row ${rank + 1}: a web result is this note's source`, weight: 0 }],
      matched_terms: searched ? searched.retrieval.matched_terms : [],
      missing_terms: searched ? searched.retrieval.missing_terms : [...required],
    },
  };
}
