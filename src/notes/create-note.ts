// The one way a new note is written: at the first free name, never over a file, and at the next
// free name when another writer (a second run of the same question, another device) took it
// between the look and the write. A name is taken when a note's differs from it only by case or
// Unicode normalisation, too. Trace notes and promoted source notes both come through here.
// It writes only through the NoteStore port, whose `create` is exclusive.
import type { NoteStore } from "../ports";
import { freeNotePath, notePathIn } from "./file-names";

/** Collisions tolerated before giving up: more than concurrent runs of one question ever make. */
const MAX_ATTEMPTS = 64;

export class NoFreeNoteName extends Error {
  readonly kind = "no_free_name";
  constructor(message: string) {
    super(message);
    this.name = "NoFreeNoteName";
  }
}

export interface CreateNoteOptions {
  /** A name to try once every numbered one is taken (a trace note's run time to the millisecond). */
  lastResortName?: string;
}

/**
 * Writes `content` as `folder/name.md`, or `name 2.md`, `name 3.md`…, whichever is free when the
 * write happens, and returns the path written. A name another writer took is never tried twice.
 */
export async function createNoteAtFreeName(
  store: Pick<NoteStore, "exists" | "create"> & Partial<Pick<NoteStore, "list">>,
  folder: string,
  name: string,
  content: string,
  options: CreateNoteOptions = {},
): Promise<string> {
  const taken = await notesAlike(store, notePathIn(folder, name));
  const exists = async (path: string) => taken.has(alike(path)) || (await store.exists(path));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const path = (await freeNotePath(folder, name, exists)) ?? (await lastResort(folder, options, exists));
    if (path === null) break;
    taken.add(alike(path));
    try {
      await store.create(path, content);
      return path;
    } catch (error) {
      // Another writer took the name between the look and the write: the next one is tried.
      // Any other failure (no permission, outside the vault) is the caller's to report.
      if (!(await store.exists(path))) throw error;
    }
  }
  throw new NoFreeNoteName(`Could not find a free file name for "${name}" in ${folder || "the vault root"}.`);
}

/**
 * A path as a case-insensitive file system (Windows, macOS, most phones) and Unicode normalisation
 * see it: `Page.md`, `page.md` and an NFD `Café.md` are one file there. On Linux they are two, and
 * the vault synced to one of those has two notes where it can hold one, so one is lost.
 */
function alike(path: string): string {
  return path.normalize("NFC").toLowerCase();
}

/**
 * As `alike` reads them, the paths of the notes that could be alike to one written beside `sample`:
 * those in its folder (every name tried is there). None when the store cannot list (a name is then
 * checked alone). A path of printable ASCII is ruled out by its start before any normalising: in a vault
 * of 100,000 notes, normalising every path held the app's thread about 90 ms at each note written.
 */
async function notesAlike(store: Partial<Pick<NoteStore, "list">>, sample: string): Promise<Set<string>> {
  const taken = new Set<string>();
  if (!store.list) return taken;
  const dir = alike(sample.slice(0, sample.lastIndexOf("/") + 1));
  try {
    for (const { path } of await store.list()) {
      const outside = NOT_PRINTABLE_ASCII.test(path) ? !alike(path).startsWith(dir) : path.slice(0, dir.length).toLowerCase() !== dir;
      if (!outside) taken.add(alike(path));
    }
  } catch {
    return new Set();
  }
  return taken;
}

/** A character outside printable ASCII: such a path is normalised before it is compared. */
const NOT_PRINTABLE_ASCII = /[^ -~]/;

async function lastResort(folder: string, options: CreateNoteOptions, exists: (path: string) => Promise<boolean>): Promise<string | null> {
  if (options.lastResortName === undefined) return null;
  const path = notePathIn(folder, options.lastResortName);
  return (await exists(path)) ? null : path;
}
