// The notes a question names: a note's title, file name or alias of two words or more (or of one
// in lowerCamelCase), said in the question word for word ("who wrote Out of Control", "git stash
// including untracked files"), found when the question is asked among the notes whose title,
// aliases or path hold one of its words (the index's postings; nothing is built at a start, a
// note's names are worked out once).
// Stop words count here ("Out of Control" is three words, not "control"), hyphens, underscores
// and apostrophes part words ("git-stash" is "git stash", "Kelly's" is "kelly s"), case and
// accents do not matter. One-word names are left to the title bonus: too many notes are called
// "Index" or "Tasks" for one word to name one of them; but a name written in lowerCamelCase, as a
// setting, a property or a function is ("assetsPrefix", "duplicateNoteBehavior"), is one word that
// names its note when the question writes it so too. Scripts written without spaces (Chinese,
// Japanese, Thai…: text/scripts.ts) are matched character by character, and a name in them is
// measured in the words its characters make: a title of one such run was one "word", so it never
// named its note, and the question holding it was one "word" too, never the name word for word.
import { fileTitle } from "../markdown";
import { isStopWord } from "../stopwords";
import { compoundParts, foldCase, isIdentifier, words } from "../tokenize";
import type { ParsedQuery } from "../query";
import type { ScorePart } from "../types";
import type { RankedHit } from "./explain";
import { roundTo } from "../../text/numbers";
import { CJK_CHAR, CJK_RUNS } from "../../text/scripts";

/** The score part of a note lifted because the question names it (the CLI and the panel say it in words). */
export const NAMED_PART = "named in the question";
/** Longest name looked for, in words: a longer title is a sentence, not a name. */
export const MAX_NAME_WORDS = 8;
/** Longer than this, a title or alias is not read as a name at all (eight words of forty letters fit). */
const MAX_NAME_CHARS = 400;
/** Aliases of a note read as names (a property may list thousands). */
const MAX_ALIASES = 64;
/** A name that many notes share ("Getting Started", "Read Me") names none of them. */
export const MAX_NOTES_A_NAME = 3;
/** At most this many named notes a question: the rest of the ranking stays the words'. */
export const MAX_NAMED = 3;
/** Words of a question looked at for names (a pasted page is not read to its end). */
const MAX_QUESTION_WORDS = 256;
/** A field holding a word in more notes than this is not read for it (a name made only of such words is not found). */
export const MAX_NOTES_A_WORD = 2000;
/** Notes looked at a question, the question's rarest words first. */
export const MAX_CANDIDATES = 5000;
/** Pieces of a question a name is looked for in (a pasted page of Chinese is one word of thousands of characters). */
const MAX_QUESTION_PIECES = 1024;

/** Chinese and Korean characters that make about one word: most of their words are two. */
const HAN_PER_WORD = 2;
/** Letters of kana, Thai, Lao, Khmer and Burmese that make about one word (as text/word-count.ts counts Thai). */
const LETTERS_PER_WORD = 3;
const HAN_OR_HANGUL = /[\p{Script=Han}\p{Script=Hangul}]/u;
const LETTER = /\p{L}/u;
/** A character with the marks written on it (Thai's tones and vowels), or marks alone. */
const CHARACTER = /\P{M}\p{M}*|\p{M}+/gu;

/**
 * A folded word as names are matched: its parts ("git-stash" → git, stash), and in a script written
 * without spaces each character on its own ("机器学习" → 机, 器, 学, 习), so a name inside a run
 * of them is found wherever the run holds it.
 */
function namePieces(word: string): string[] {
  const parts = compoundParts(word);
  if (!CJK_CHAR.test(word)) return parts;
  return parts.flatMap((part) => (part.match(CJK_RUNS) ?? []).flatMap((run) => (CJK_CHAR.test(run) ? (run.match(CHARACTER) ?? []) : [run])));
}

/** How many words a name's pieces make: a spaced word is one; characters of the unspaced scripts, a share of one each (rounded over the name). */
function wordsOfName(pieces: readonly string[]): number {
  let spaced = 0;
  let han = 0;
  let letters = 0;
  for (const piece of pieces) {
    if (!CJK_CHAR.test(piece)) spaced++;
    else if (HAN_OR_HANGUL.test(piece)) han++;
    else if (LETTER.test(piece)) letters++;
  }
  return spaced + Math.round(han / HAN_PER_WORD + letters / LETTERS_PER_WORD);
}

/** The key a name is looked up by (its words joined by spaces), or null when it cannot name a note. */
export function nameWordsKey(text: string): string | null {
  if (text.length > MAX_NAME_CHARS) return null;
  const typed = words(text);
  // As a name says them: folded, compounds parted ("git-stash" → git, stash), unspaced scripts by character.
  const w = typed.flatMap((t) => namePieces(foldCase(t)));
  if (w.length === 1 && isIdentifier(typed[0])) return w[0];
  const size = wordsOfName(w);
  return size < 2 || size > MAX_NAME_WORDS || w.every(isStopWord) ? null : w.join(" ");
}

/** A note the question names, and the name it used. */
export interface NamedNote {
  path: string;
  name: string;
  /** The name is all the question asks about: every word of the question but its stop words is in it ("what is space lua"). */
  whole: boolean;
}

/** What a note is called: its title, its file name, its aliases. */
export interface NoteCalled {
  path: string;
  title: string;
  aliases: readonly string[];
}

/** Where the notes a question may name are looked for: notes whose title, aliases or path hold one of its words. */
export interface NameSource {
  /** How many notes hold the word, in any field (its rarity: the rarest words are looked up first). */
  notesHolding(word: string): number;
  /** The notes whose title, aliases or path hold the word (read as the index reads words); a field holding it in more than `limit` notes is not read. */
  notesCalled(word: string, limit: number): readonly NoteCalled[];
}

// A note's names, worked out once per note object (a changed note is a new object, so nothing goes stale).
const keysCache = new WeakMap<NoteCalled, readonly string[]>();

/** What a note is called: its title, its file name when that differs (most notes' title is their file name), its first `aliases` aliases. */
export function namesOf(note: NoteCalled, aliases = Infinity): string[] {
  const file = fileTitle(note.path);
  const own = note.aliases.slice(0, aliases);
  return file === note.title ? [file, ...own] : [note.title, file, ...own];
}

/** The keys a note is called by, each once. */
function keysOf(note: NoteCalled): readonly string[] {
  const cached = keysCache.get(note);
  if (cached) return cached;
  const keys: string[] = [];
  for (const name of namesOf(note, MAX_ALIASES)) {
    const key = nameWordsKey(name);
    if (key && !keys.includes(key)) keys.push(key);
  }
  keysCache.set(note, keys);
  return keys;
}

/**
 * The notes the question's words name. Only notes whose title, aliases or path hold one of its
 * words are looked at, at most `MAX_CANDIDATES`, found through its rarest words first. Where two
 * names overlap ("docker compose" in "docker compose stop"), only the longer counts; a name of one
 * word counts only as the question wrote it, in lowerCamelCase ("siteUrl", not "siteurl": "a
 * remarkable result" does not name the note "reMarkable"); a name shared by more than
 * `MAX_NOTES_A_NAME` notes counts for none; `keep` filters (a #tag filter). At most `MAX_NAMED`,
 * names of fewer notes first.
 */
export function namedIn(query: Pick<ParsedQuery, "sequence" | "identifiers">, source: NameSource, keep: ((path: string) => boolean) | null = null): NamedNote[] {
  const sequence = query.sequence.slice(0, MAX_QUESTION_WORDS);
  const said = sequence.flatMap(namePieces).slice(0, MAX_QUESTION_PIECES);
  const identifiers = new Set(query.identifiers);
  // A stop word's parts ask nothing: "what's" is not "what" and "s" ("What's Space Lua?" is its name).
  const asked = [...new Set(sequence.filter((w) => !isStopWord(w)).flatMap(compoundParts).filter((w) => !isStopWord(w)))];
  const holding = new Map(asked.map((w) => [w, source.notesHolding(w)]));
  asked.sort((a, b) => holding.get(a)! - holding.get(b)! || (a < b ? -1 : 1));
  const candidates = new Map<string, NoteCalled>();
  for (const word of asked) {
    if (candidates.size >= MAX_CANDIDATES) break;
    for (const note of source.notesCalled(word, MAX_NOTES_A_WORD)) if (candidates.size < MAX_CANDIDATES) candidates.set(note.path, note);
  }
  // Each name the question says, the notes it names, and every place the question says it.
  const text = ` ${said.join(" ")} `;
  const byName = new Map<string, string[]>();
  for (const note of candidates.values()) {
    for (const key of keysOf(note)) {
      if (!text.includes(` ${key} `) || (!key.includes(" ") && !identifiers.has(key))) continue;
      const paths = byName.get(key);
      if (paths) paths.push(note.path);
      else byName.set(key, [note.path]);
    }
  }
  const found: { start: number; end: number; name: string; paths: string[] }[] = [];
  for (const [name, paths] of byName) {
    if (paths.length > MAX_NOTES_A_NAME) continue;
    const length = name.split(" ").length;
    for (let at = text.indexOf(` ${name} `); at >= 0; at = text.indexOf(` ${name} `, at + 1)) {
      const start = text.slice(0, at).split(" ").length - 1;
      found.push({ start, end: start + length, name, paths: paths.sort() });
    }
  }
  found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start || (a.name < b.name ? -1 : 1));
  const taken = new Uint8Array(said.length);
  const chosen: typeof found = [];
  for (const f of found) {
    if (taken.subarray(f.start, f.end).some((t) => t === 1)) continue;
    taken.fill(1, f.start, f.end);
    chosen.push(f);
  }
  // Past the overlaps, a name of one note says more than a name two or three share: it goes first
  // when there are more notes than are lifted ("siteUrl and assetsPrefix" beside "GitHub Pages").
  const kept = chosen.map((f) => ({ name: f.name, paths: keep ? f.paths.filter(keep) : f.paths }));
  kept.sort((a, b) => a.paths.length - b.paths.length);
  const askedPieces = asked.flatMap(namePieces);
  const named: NamedNote[] = [];
  for (const f of kept) {
    const inName = new Set(f.name.split(" "));
    const whole = askedPieces.every((w) => inName.has(w));
    for (const path of f.paths) if (!named.some((n) => n.path === path)) named.push({ path, name: asWritten(f.name), whole });
  }
  return named.slice(0, MAX_NAMED);
}

/** A name's key as a reader writes it: no space between two characters of a script written without spaces ("机器学习", not "机 器 学 习"). */
function asWritten(key: string): string {
  const pieces = key.split(" ");
  let out = pieces[0];
  for (let i = 1; i < pieces.length; i++) out += (CJK_CHAR.test(pieces[i - 1]) && CJK_CHAR.test(pieces[i]) ? "" : " ") + pieces[i];
  return out;
}

/**
 * Places the notes the question names among the ranked `hits` (best first): each at `place`
 * (0-based) among the other notes, or first when its name is the whole question, unless it ranks
 * higher already. A lifted note takes the score of the note it passes (the order and the scores
 * agree), the lift a part of its score. Only a whole name goes first: "after a git reset" names
 * `git-reset` and may be asking about `git-reflog`. A whole name's note, once first, stays first
 * through the vault-language lane's fusion (`keepFirst`).
 */
export function liftNamed(hits: readonly RankedHit[], named: readonly NamedNote[], place: number): RankedHit[] {
  const byPath = new Map(named.map((n) => [n.path, n]));
  const others = hits.filter((h) => !byPath.has(h.path));
  // Each note's slot: an other note's own place among the others; a named note just before the
  // other note it passes, or where its own score puts it.
  let otherAt = 0;
  const placed = hits.map((hit) => {
    const n = byPath.get(hit.path);
    if (!n) return { hit, own: hit.score, slot: otherAt++ };
    const target = n.whole ? 0 : place;
    const passed = others[target];
    if (passed === undefined || passed.score <= hit.score) {
      const natural = others.findIndex((o) => o.score <= hit.score);
      return { hit, own: hit.score, slot: (natural < 0 ? others.length : natural) - 0.5 };
    }
    const detail = n.whole ? `the question is its name, "${n.name}"` : `the question says "${n.name}"`;
    const part: ScorePart = { name: NAMED_PART, detail, weight: roundTo(passed.score - hit.score, 3) };
    const explanation = { ...hit.explanation, parts: [...hit.explanation.parts, part] };
    return { hit: { ...hit, score: passed.score, explanation }, own: hit.score, slot: target - 0.5 };
  });
  placed.sort((a, b) => a.slot - b.slot || b.own - a.own || (a.hit.path < b.hit.path ? -1 : 1));
  const ordered = placed.map((p) => p.hit);
  const first = ordered[0];
  if (first && byPath.get(first.path)?.whole) ordered[0] = { ...first, keepFirst: true };
  return ordered;
}
