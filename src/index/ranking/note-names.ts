// The notes a question names: a note's title, file name or alias of two words or more, said in
// the question word for word ("who wrote Out of Control", "git stash including untracked files").
// Stop words count here ("Out of Control" is three words, not "control"), hyphens, underscores
// and apostrophes part words ("git-stash" is "git stash", "Kelly's" is "kelly s"), case and
// accents do not matter. One-word names are left to the title bonus: too many notes are called
// "Index" or "Tasks" for one word to name one of them.
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

/** Folded words as a name says them: split at - _ ' ’ ("git-stash" → git, stash). */
function nameParts(folded: readonly string[]): string[] {
  return folded.flatMap((w) => w.split(/[-_'’]+/u)).filter((w) => w !== "");
}

/** The key a name is kept and looked up under (its words joined by spaces), or null when it cannot name a note. */
export function nameKey(text: string): string | null {
  const w = nameParts(words(text).map(foldCase));
  if (w.length < 2 || w.length > MAX_NAME_WORDS || w.every(isStopWord)) return null;
  return w.join(" ");
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
}

/** What a note is called: its title, its file name, its aliases. */
export interface NoteCalled {
  path: string;
  title: string;
  aliases: readonly string[];
}

/** The keys a note is filed under (each once). */
function keysOf(note: NoteCalled): Set<string> {
  const keys = new Set<string>();
  for (const name of [note.title, fileName(note.path), ...note.aliases]) {
    const key = nameKey(name);
    if (key) keys.add(key);
  }
  return keys;
}

/**
 * The names of every note, kept as notes come and go: name → notes only (a note's names are
 * worked out again from the note when it leaves), so a vault of one-word titles costs nothing.
 */
export class NoteNames {
  /** A name's one note, or its notes when several share it (a set: thousands may). */
  private readonly byKey = new Map<string, string | Set<string>>();

  add(note: NoteCalled): void {
    for (const key of keysOf(note)) {
      const held = this.byKey.get(key);
      if (held === undefined) this.byKey.set(key, note.path);
      else if (typeof held === "string") {
        if (held !== note.path) this.byKey.set(key, new Set([held, note.path]));
      } else held.add(note.path);
    }
  }

  /** Takes the note out from under the names it was added with. */
  remove(note: NoteCalled): void {
    for (const key of keysOf(note)) {
      const held = this.byKey.get(key);
      if (held === note.path) this.byKey.delete(key);
      else if (typeof held === "object") {
        held.delete(note.path);
        if (held.size === 1) this.byKey.set(key, held.values().next().value as string);
      }
    }
  }

  clear(): void {
    this.byKey.clear();
  }

  private notesCalled(key: string): readonly string[] {
    const held = this.byKey.get(key);
    if (held === undefined) return [];
    return typeof held === "string" ? [held] : held.size <= MAX_NOTES_A_NAME ? [...held].sort() : [];
  }

  /**
   * The notes the words name, longest name first. Where two names overlap ("docker compose" in
   * "docker compose stop"), only the longer counts; a name shared by more than
   * `MAX_NOTES_A_NAME` notes counts for none; `keep` filters (a #tag filter). At most `MAX_NAMED`.
   */
  namedIn(sequence: readonly string[], keep: ((path: string) => boolean) | null = null): NamedNote[] {
    const said = nameParts(sequence.slice(0, MAX_QUESTION_WORDS));
    const found: { start: number; end: number; name: string; paths: readonly string[] }[] = [];
    for (let start = 0; start < said.length; start++) {
      for (let end = start + 2; end <= Math.min(said.length, start + MAX_NAME_WORDS); end++) {
        const name = said.slice(start, end).join(" ");
        const paths = this.notesCalled(name);
        if (paths.length > 0) found.push({ start, end, name, paths });
      }
    }
    found.sort((a, b) => b.end - b.start - (a.end - a.start) || a.start - b.start);
    const taken = new Uint8Array(said.length);
    const named: NamedNote[] = [];
    for (const f of found) {
      if (taken.subarray(f.start, f.end).some((t) => t === 1)) continue;
      taken.fill(1, f.start, f.end);
      for (const path of f.paths) if (!named.some((n) => n.path === path) && (!keep || keep(path))) named.push({ path, name: f.name });
    }
    return named.slice(0, MAX_NAMED);
  }
}
