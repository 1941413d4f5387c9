// The judge's reason, in words a user can check against the notes: which note, which of the
// question's words it has (and where), which only through a word the vault uses with them, and
// which are missing. Each lever of the judge reads a little differently; the reason names it.
import type { QueryPlan } from "../../evidence/research-pack";
import { oneLine } from "../../text/one-line";
import type { Concepts } from "./judge-coverage";
import { bareOf, relationWords, unsaidNames, unsaidSide, type Examined, type JudgeLever } from "./judge";

/** At most this many words are listed; the rest are counted. */
const LISTED = 5;

/** `hub`: another top note that names words of the question only in a list of links (said too: it is what search ranked high). */
export function reasonFor(lever: JudgeLever, e: Examined, concepts: Concepts, plan: QueryPlan, hub?: Examined): string {
  const said = leverReason(lever, e, concepts, plan);
  const reason = hub && hub !== e ? `${said.slice(0, -1)}${linkListPart(hub, concepts, concepts.terms)}.` : said;
  // A note found beyond the first search says how it was found.
  if (!e.found || lever === "related_note") return reason;
  const how = e.found.kind === "link" ? `${titled(e.found.fromTitle)} ${relationWords(e.found.relation)} it` : `a rewrite of the question ("${oneLine(e.found.rewrite)}") found it`;
  return `${reason.slice(0, -1)}; ${how}.`;
}

function leverReason(lever: JudgeLever, e: Examined, concepts: Concepts, plan: QueryPlan): string {
  const title = titled(e.notes[0]?.title);
  const has = coveredWords(e, concepts);
  const missing = missingPart(e, concepts);
  const standIns = standInPart(e, concepts);
  const pct = (n: number) => `${Math.round(n * 100)}%`;
  switch (lever) {
    case "one_section":
      return `${title} covers ${has} in one passage (${pct(e.note)} of the question's weight)${standIns}${missing}.`;
    case "named_note":
      return `${title} is about what was asked: its title or opening names ${wordsList(concepts, (t) => (e.coverage.named.get(t) ?? 0) >= 1)} (${pct(e.note)} of the question's weight)${standIns}${missing}.`;
    case "spread_in_note":
      return `${title} covers ${has} (${pct(e.note)} of the question's weight), spread over one section${standIns}${missing}.`;
    case "two_notes":
      return `Two notes answer it together: ${twoNotes(e, concepts)} (${pct(e.note)} of the question's weight)${missing}.`;
    case "related_note":
      return `A note and one it is related to answer it together (${titled(e.notes[0]?.title)} ${e.found?.kind === "link" ? relationWords(e.found.relation) : "is related to"} ${titled(e.notes[1]?.title)}): ${twoNotes(e, concepts)} (${pct(e.note)} of the question's weight)${missing}.`;
    case "current_state":
      return `${title} covers ${has} (${pct(e.note)} of the question's weight), but the question asks about the current state ("${plan.freshness.cues.join('", "')}") and notes may be out of date.`;
    case "name_missing":
      return `Partial evidence: ${title} covers ${has} (${pct(e.note)} of the question's weight), but never says ${listOf(unsaidNames(concepts, e))}, which the question names.`;
    case "little_coverage":
      return `Notes share at most ${pct(e.note)} of the question's content words${has === "none of its words" ? "" : ` (${title} has ${has})`}${missing}.`;
    case "bare_note":
      return `Partial evidence: ${title} has ${has} (${pct(e.note)} of the question's weight), but says nothing of its own: ${bareWhat(e)}${missing}.`;
    case "side_missing":
      return `Partial evidence: ${title} covers ${has} (${pct(e.note)} of the question's weight), but never says ${listOf(unsaidSide(concepts, e) ?? [])}, one of the two things the question asks about${missing}.`;
    case "partial_coverage":
      return `Partial evidence: ${title} covers only ${has} (${pct(e.note)} of the question's weight)${standIns}${missing}.`;
    default:
      return `Partial evidence: ${title} has ${has}, but spread out: no passage holds more than ${pct(e.close)} of the question's weight together${missing}.`;
  }
}

/** What a bare note holds instead of words of its own (bare-notes.ts), as the reason says it. */
function bareWhat(e: Examined): string {
  const bare = bareOf(e)?.bare;
  switch (bare?.kind) {
    case "stub":
      return `it is a stub ("${bare.mark}")`;
    case "template":
      return `it is a template's placeholders ("${bare.placeholder}")`;
    case "empty_fields":
      return `it is a form whose fields are empty ("${bare.field}")`;
    case "embeds":
      return `it only embeds other notes or files ("${bare.embed}"), which were not read`;
    case "query":
      return `it only runs a query ("${bare.language}"), whose results were not read`;
    case "links":
      return "it is only links to other notes";
    case "headings":
      return "it is headings with nothing under them";
    default:
      return "the note is empty but for its title";
  }
}

/** A note's title as the reason names it: quoted, on one line (a title property may span lines). */
function titled(title: string | undefined): string {
  return `"${oneLine(title ?? "")}"`;
}

/** ""foam grep" has "grep"; "foam search" has "search"; both have "foam"" for a two-note verdict. */
function twoNotes(e: Examined, concepts: Concepts): string {
  const [a, b] = e.each;
  const has = (c: typeof a | undefined, t: string) => (c?.inNote.get(t) ?? 0) >= 1;
  const only = (x: typeof a, y: typeof a) => concepts.terms.filter((t) => has(x, t) && !has(y, t));
  const both = concepts.terms.filter((t) => has(a, t) && has(b, t));
  const part = (i: number, words: string[]) => `${titled(e.notes[i]?.title)} has ${words.length > 0 ? listOf(words) : "its part"}`;
  return `${part(0, only(a, b))}; ${part(1, only(b, a))}${both.length > 0 ? `; both have ${listOf(both)}` : ""}`;
}

/**
 * The missing words; those weighed as everyday words of the vault said apart, as counting little,
 * and those the note names only in a list of links (a hub's) said as such: a user who opens it sees them.
 */
function missingPart(e: Examined, concepts: Concepts): string {
  const absent = concepts.terms.filter((t) => (e.coverage.inNote.get(t) ?? 0) === 0);
  const listed = absent.filter((t) => e.coverage.linkListed?.has(t));
  const missing = absent.filter((t) => !listed.includes(t));
  const light = missing.filter((t) => concepts.everyday?.has(t));
  const why = light.length === 0 ? "" : ` (${listOf(light)} ${light.length === 1 ? "counts little: this vault uses it as an everyday word" : "count little: this vault uses them as everyday words"})`;
  return `${missing.length === 0 ? "" : `; ${listOf(missing)} ${missing.length === 1 ? "is" : "are"} missing${why}`}${linkListPart(e, concepts, absent)}`;
}

/** "; "Files and links" has "attachments" only in a list of links…" for those of `terms` the notes name so; "" for none. */
export function linkListPart(e: Examined, concepts: Concepts, terms: readonly string[]): string {
  const listed = terms.filter((t) => e.coverage.linkListed?.has(t) && (e.coverage.inNote.get(t) ?? 0) === 0);
  if (listed.length === 0) return "";
  const whose = e.notes.length === 1 ? `${titled(e.notes[0].title)} has` : "the notes have";
  return `; ${whose} ${listOf(listed)} only in a list of links to other notes`;
}

function standInPart(e: Examined, concepts: Concepts): string {
  const parts = concepts.terms
    .filter((t) => e.coverage.standIns.has(t) && (e.coverage.inNote.get(t) ?? 0) > 0 && (e.coverage.inNote.get(t) ?? 0) < 1)
    .map((t) => `"${t}" only through ${listOf(e.coverage.standIns.get(t)!.slice(0, 2))}`);
  if (parts.length === 0) return "";
  return `; ${parts.join(", ")} (words this vault uses together)`;
}

/**
 * The words the notes have, and those they have part of: a Chinese or Japanese run of the question
 * ("冰箱温度") of which they hold some character pairs. (A word held only through a stand-in is said
 * apart, by standInPart.)
 */
function coveredWords(e: Examined, concepts: Concepts): string {
  const share = (t: string) => e.coverage.inNote.get(t) ?? 0;
  const whole = concepts.terms.filter((t) => share(t) >= 1).map((t) => `"${t}"`);
  const part = concepts.terms.filter((t) => share(t) > 0 && share(t) < 1 && !e.coverage.standIns.has(t)).map((t) => `part of "${t}"`);
  return [...whole, ...part].length === 0 ? "none of its words" : listOfQuoted([...whole, ...part]);
}

function wordsList(concepts: Concepts, keep: (term: string) => boolean): string {
  const kept = concepts.terms.filter(keep);
  return kept.length === 0 ? "none of its words" : listOf(kept);
}

export function listOf(terms: string[]): string {
  return listOfQuoted(terms.map((t) => `"${t}"`));
}

function listOfQuoted(items: string[]): string {
  const quoted = items.slice(0, LISTED);
  const more = items.length - LISTED;
  if (more > 0) return `${quoted.join(", ")} and ${more} more`;
  if (quoted.length <= 1) return quoted.join("");
  return `${quoted.slice(0, -1).join(", ")} and ${quoted[quoted.length - 1]}`;
}
