// The "exact phrase" check. The index keeps no text, so a quoted phrase is checked against the
// text of the best-ranked candidates, read from the store: ranking finds notes with the phrase's
// words, this keeps those where the words stand together, in order.
import type { NoteStore } from "../ports";
import { CJK_CHAR, CJK_CHARS } from "../text/scripts";
import type { RankedHit } from "./ranking/explain";
import { readNotes } from "./read-notes";
import { foldCase } from "./tokenize";

/** Candidates ranked for a phrase search: the check throws many away, and reading is bounded. */
export function phraseCandidateCount(limit: number): number {
  return Math.max(limit * 10, 100);
}

/**
 * Text folded for phrase matching: case and accents folded, every run of non-word characters one
 * space, a space at each end, so a phrase matches `includes(` ${phrase} `)` on whole words only.
 */
export function foldForPhrase(text: string): string {
  const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
  let out = " ";
  for (const w of words) {
    let folded = foldCase(w);
    // Scripts written without spaces give no word boundaries: each character counts as a word,
    // so a quoted phrase can start in the middle of a run.
    if (CJK_CHAR.test(folded)) folded = folded.replace(CJK_CHARS, " $& ").trim().replace(/ +/g, " ");
    out += folded + " ";
  }
  return out;
}

/**
 * The first `limit` of `ranked` whose text holds every phrase, each with a "phrase" part added to
 * its explanation. `namesOf`: a note's names (title, file name, aliases), which hold a phrase too:
 * a quoted title finds the note even when its text never says it.
 */
export async function keepPhraseMatches(ranked: RankedHit[], asked: string[], store: NoteStore, limit: number, namesOf: (path: string) => readonly string[] = () => []): Promise<RankedHit[]> {
  // A phrase of no words ("—", "!!!") cannot be checked word by word: it is no condition, and no
  // note is said to contain it (its folded form, two spaces, met the seam of a text and its names).
  const phrases = asked.filter((p) => foldForPhrase(p).trim() !== "");
  if (phrases.length === 0) return ranked.slice(0, limit);
  const kept: RankedHit[] = [];
  const candidates = ranked.slice(0, phraseCandidateCount(limit));
  const texts = await readNotes(
    store,
    candidates.map((c) => c.path),
  );
  const folded = phrases.map((p) => ` ${foldForPhrase(p).trim()} `);
  for (let i = 0; i < candidates.length && kept.length < limit; i++) {
    const text = texts[i];
    if (typeof text !== "string") continue;
    const hit = candidates[i];
    const foldedText = [text, ...namesOf(hit.path)].map(foldForPhrase).join("");
    if (!folded.every((p) => foldedText.includes(p))) continue;
    hit.explanation.parts.push({ name: "phrase", detail: `contains "${phrases.join('", "')}"`, weight: 0 });
    kept.push(hit);
  }
  return kept;
}
