// The notes a question names: a note's title, file name or alias of two words or more, said in
// the question word for word ("who wrote Out of Control", "git stash including untracked files"),
// found when the question is asked among the notes whose title, aliases or path hold one of its
// words (the index's postings; nothing is kept, nothing is built at a start).
// Stop words count here ("Out of Control" is three words, not "control"), hyphens, underscores
// and apostrophes part words ("git-stash" is "git stash", "Kelly's" is "kelly s"), case and
// accents do not matter. One-word names are left to the title bonus: too many notes are called
// "Index" or "Tasks" for one word to name one of them.
import { hasNonAscii } from "../../text/control-chars";
import { foldCase, words } from "../tokenize";
import { isStopWord } from "../stopwords";

/** The score part of a note lifted because the question names it (explain.ts; the CLI and the panel say it in words). */
export const NAMED_PART = "named in the question";
/** Longest name looked for, in words: a longer title is a sentence, not a name. */
export const MAX_NAME_WORDS = 8;
/** A name that many notes share ("Getting Started", "Read Me") names none of them. */
export const MAX_NOTES_A_NAME = 3;
/** At most this many named notes a question: the rest of the ranking stays the words'. */
export const MAX_NAMED = 3;
/** Words of a question looked at for names (a pasted page is not read to its end). */
const MAX_QUESTION_WORDS = 256;
/** A field holding a word in more notes than this is not read for it, and no more than `MAX_CANDIDATES` notes are read a question. */
export const MAX_NOTES_A_WORD = 2000;
const MAX_CANDIDATES = 5000;

/** Folded words as a name says them: split at - _ ' ’ ("git-stash" → git, stash). */
function nameParts(folded: readonly string[]): string[] {
  return folded.flatMap((w) => w.split(/[-_'’]+/u)).filter((w) => w !== "");
}

/** The key a name is kept and looked up under (its words joined by spaces), or null when it cannot name a note. */
export function nameKey(text: string): string | null {
  return hasNonAscii(text) ? unicodeNameKey(text) : asciiNameKey(text);
}

/** `nameKey` of any text, the words read as the analyser reads them (tokenize.ts). */
export function unicodeNameKey(text: string): string | null {
  return keyOf(nameParts(words(text).map(foldCase)));
}

function keyOf(w: readonly string[]): string | null {
  return w.length < 2 || w.length > MAX_NAME_WORDS || w.every(isStopWord) ? null : w.join(" ");
}

/**
 * `nameKey` of an ASCII text without a regular expression (every note's names are keyed when the
 * index is first searched): its words are the runs of letters and digits. A test holds it to the
 * Unicode reading.
 */
function asciiNameKey(text: string): string | null {
  const spans: number[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const inWord = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (inWord) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      spans.push(start, i);
      start = -1;
      if (spans.length > 2 * MAX_NAME_WORDS) return null;
    }
  }
  if (spans.length < 4) return null;
  const w: string[] = [];
  for (let k = 0; k < spans.length; k += 2) w.push(text.slice(spans[k], spans[k + 1]).toLowerCase());
  return keyOf(w);
}

/** The path's file name without `.md`: what a `[[link]]` to the note says. */
export function fileName(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name.toLowerCase().endsWith(".md") ? name.slice(0, -3) : name;
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

/** The keys a note is called by (each once; most notes' title is their file name). */
function keysOf(note: NoteCalled): string[] {
  const keys: string[] = [];
  const file = fileName(note.path);
  for (const name of file === note.title ? [file, ...note.aliases] : [note.title, file, ...note.aliases]) {
    const key = nameKey(name);
    if (key && !keys.includes(key)) keys.push(key);
  }
  return keys;
}

/** Where the notes a question may name are looked for: notes whose title, aliases or path hold one of its words. */
export interface NameSource {
  /** The notes whose title, aliases or path hold the word (read as the index reads words); a field holding it in more than `limit` notes is not read. */
  notesCalled(word: string, limit: number): readonly NoteCalled[];
}

/**
 * The notes the question's words name, longest name first. Only notes whose title, aliases or path
 * hold one of its words are looked at (a field holding a word in more than `MAX_NOTES_A_WORD` notes
 * is not read for it: a name made only of words that common there is not found). Where two names overlap ("docker compose" in
 * "docker compose stop"), only the longer counts; a name shared by more than `MAX_NOTES_A_NAME`
 * notes counts for none; `keep` filters (a #tag filter). At most `MAX_NAMED`.
 */
export function namedIn(sequence: readonly string[], source: NameSource, keep: ((path: string) => boolean) | null = null): NamedNote[] {
  const said = nameParts(sequence.slice(0, MAX_QUESTION_WORDS));
  const candidates = new Map<string, NoteCalled>();
  for (const word of new Set(said)) {
    if (isStopWord(word)) continue;
    for (const note of source.notesCalled(word, MAX_NOTES_A_WORD)) {
      if (candidates.size >= MAX_CANDIDATES) break;
      candidates.set(note.path, note);
    }
  }
  // Each name the question says, the notes it names, and the words it takes up.
  const text = ` ${said.join(" ")} `;
  const byName = new Map<string, string[]>();
  for (const note of candidates.values()) {
    for (const key of keysOf(note)) {
      if (!text.includes(` ${key} `)) continue;
      const paths = byName.get(key);
      if (paths) paths.push(note.path);
      else byName.set(key, [note.path]);
    }
  }
  const found: { start: number; end: number; name: string; paths: string[] }[] = [];
  for (const [name, paths] of byName) {
    if (paths.length > MAX_NOTES_A_NAME) continue;
    const at = text.indexOf(` ${name} `);
    const start = text.slice(0, at).split(" ").length - 1;
    found.push({ start, end: start + name.split(" ").length, name, paths: paths.sort() });
  }
  found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start || (a.name < b.name ? -1 : 1));
  const taken = new Uint8Array(said.length);
  const asked = said.filter((w) => !isStopWord(w));
  const named: NamedNote[] = [];
  for (const f of found) {
    if (taken.subarray(f.start, f.end).some((t) => t === 1)) continue;
    taken.fill(1, f.start, f.end);
    const inName = new Set(f.name.split(" "));
    const whole = asked.every((w) => inName.has(w));
    for (const path of f.paths) if (!named.some((n) => n.path === path) && (!keep || keep(path))) named.push({ path, name: f.name, whole });
  }
  return named.slice(0, MAX_NAMED);
}
