// Which notes link to which: the targets each note writes ([[wikilinks]], ![[embeds]], markdown
// links to notes, as the parser reads them: ParsedNote.links), resolved the way Obsidian does — by
// path (from the vault root, or from the linking note's folder), then by a file name (or the end
// of a path, `[[sub/note]]`; of several notes so named, the one in the linking note's folder, else
// the shortest path), then by an alias (or a frontmatter title) only one note has. A link that
// resolves so to nothing is tried as other tools name pages: Logseq's namespace `a/b` is the file
// `a___b.md`, SilverBullet's `page@120` is a place in `page`.
// Links are kept as written and resolved when asked, so a note added or renamed later changes
// what older links point to without touching the notes that wrote them. Case does not matter;
// `.md` is optional. Kept note by note (setNote / removeNote); it holds no note text.
// So a note moved with its text and file name unchanged (`moveNote`) needs no reading: its targets
// as written are what its parse gives at the new path too, and each is resolved from there when asked
// (`../x.md` from its new folder); links to it by path find it at the new one, by name as before.

/** What the graph needs of one note. */
export interface LinkedNote {
  path: string;
  /** Link targets as written, `#heading` parts already cut (ParsedNote.links). */
  links: readonly string[];
  /** Frontmatter aliases, and the title when it is not the file name: other names links may use. */
  names: readonly string[];
}

export class LinkGraph {
  /** Source path → targets it writes. */
  private readonly written = new Map<string, readonly string[]>();
  /** Other names per note, as given. */
  private readonly namesOf = new Map<string, readonly string[]>();
  /** Lower-cased path without `.md` → path. */
  private readonly byPath = new Map<string, string>();
  /** Lower-cased file name without `.md` → the notes of that name. */
  private readonly byBasename = new Map<string, Set<string>>();
  /** Lower-cased alias or title → the notes that carry it. */
  private readonly byName = new Map<string, Set<string>>();
  /** Lower-cased last segment of a written target → the notes that wrote it (for backlinks). */
  private readonly byTargetName = new Map<string, Set<string>>();

  get size(): number {
    return this.written.size;
  }

  has(path: string): boolean {
    return this.written.has(path);
  }

  setNote(note: LinkedNote): void {
    this.removeNote(note.path);
    const links = [...new Set(note.links.map((l) => l.trim()).filter(Boolean))];
    this.written.set(note.path, links);
    this.namesOf.set(note.path, note.names);
    this.byPath.set(pathKey(note.path), note.path);
    addTo(this.byBasename, baseKey(note.path), note.path);
    for (const name of note.names) addTo(this.byName, nameKey(name), note.path);
    for (const link of links) for (const key of targetKeys(link)) addTo(this.byTargetName, key, note.path);
  }

  removeNote(path: string): void {
    const links = this.written.get(path);
    if (!links) return;
    this.written.delete(path);
    if (this.byPath.get(pathKey(path)) === path) this.byPath.delete(pathKey(path));
    removeFrom(this.byBasename, baseKey(path), path);
    for (const name of this.namesOf.get(path) ?? []) removeFrom(this.byName, nameKey(name), path);
    this.namesOf.delete(path);
    for (const link of links) for (const key of targetKeys(link)) removeFrom(this.byTargetName, key, path);
  }

  /**
   * The note at `oldPath` is now at `path`, its text and file name unchanged (a folder renamed): it
   * writes the same targets and carries the same names there. False when no note is held at `oldPath`.
   */
  moveNote(oldPath: string, path: string): boolean {
    const links = this.written.get(oldPath);
    if (!links) return false;
    const names = this.namesOf.get(oldPath) ?? [];
    this.removeNote(oldPath);
    this.setNote({ path, links, names });
    return true;
  }

  /** The other names links may use for the note at `path`, as given (none when it is not held). */
  namesFor(path: string): readonly string[] {
    return this.namesOf.get(path) ?? [];
  }

  clear(): void {
    for (const map of [this.written, this.namesOf, this.byPath, this.byBasename, this.byName, this.byTargetName]) map.clear();
  }

  /** The note `target` points to when `from` writes it, or null (a link to nothing, or to one of several notes of that name). */
  resolve(target: string, from: string): string | null {
    const clean = target.trim().replace(/^\/+/, "");
    if (!clean) return null;
    const found = this.resolveAsWritten(clean, from);
    if (found) return found;
    for (const other of otherSpellings(clean)) {
      const to = this.resolveAsWritten(other, from);
      if (to) return to;
    }
    return null;
  }

  private resolveAsWritten(clean: string, from: string): string | null {
    const relative = clean.startsWith("./") || clean.startsWith("../");
    if (relative) return this.byPath.get(pathKey(joinPath(folderOf(from), clean))) ?? null;
    const exact = this.byPath.get(pathKey(clean)) ?? this.byPath.get(pathKey(joinPath(folderOf(from), clean)));
    if (exact) return exact;
    // `[[sub/note]]` may name the end of a longer path: the notes of that name whose path ends so.
    const suffix = `/${pathKey(clean)}`;
    const named = [...(this.byBasename.get(baseKey(clean)) ?? [])].filter((p) => !clean.includes("/") || `/${pathKey(p)}`.endsWith(suffix));
    if (named.length > 0) return nearest(named, folderOf(from));
    const aliased = this.byName.get(nameKey(clean));
    return aliased?.size === 1 ? first(aliased) : null;
  }

  /** The notes `path` links to, in the order written, itself and unresolved links left out. */
  outlinks(path: string): string[] {
    const out = new Set<string>();
    for (const link of this.written.get(path) ?? []) {
      const to = this.resolve(link, path);
      if (to && to !== path) out.add(to);
    }
    return [...out];
  }

  /** The targets `path` writes that point to no note, in the order written. */
  unresolved(path: string): string[] {
    return (this.written.get(path) ?? []).filter((link) => this.resolve(link, path) === null);
  }

  /** The notes that link to `path`, in path order. */
  backlinks(path: string): string[] {
    const candidates = new Set<string>(this.byTargetName.get(baseKey(path)) ?? []);
    for (const name of this.namesOf.get(path) ?? []) for (const source of this.byTargetName.get(nameKey(name)) ?? []) candidates.add(source);
    const out: string[] = [];
    for (const source of candidates) {
      if (source === path) continue;
      if ((this.written.get(source) ?? []).some((link) => this.resolve(link, source) === path)) out.push(source);
    }
    return out.sort();
  }
}

/** Of notes sharing a name, the one in `folder`, else the one with the shortest path (then the first in path order). */
function nearest(paths: string[], folder: string): string {
  const here = paths.find((p) => folderOf(p) === folder);
  if (here) return here;
  return paths.reduce((best, p) => (p.length < best.length || (p.length === best.length && p < best) ? p : best));
}

/** What other tools mean by a name: Logseq's file for the namespace `a/b` (`a___b`), SilverBullet's page of `page@120`. */
function otherSpellings(target: string): string[] {
  const out: string[] = [];
  const place = /@\d+$/.exec(target);
  if (place) out.push(target.slice(0, place.index));
  if (target.includes("/") && !target.startsWith(".")) out.push(target.replace(/\//g, "___"));
  return out;
}

/** The keys under which a written target is found when its note's backlinks are asked for. */
function targetKeys(link: string): string[] {
  return [...new Set([link, ...otherSpellings(link)].map(baseKey))];
}

function stripMd(path: string): string {
  return /\.md$/i.test(path) ? path.slice(0, -3) : path;
}

function pathKey(path: string): string {
  return stripMd(path).toLowerCase();
}

/** The last segment of a path or written target, lower-cased, without `.md`. */
function baseKey(path: string): string {
  const clean = stripMd(path.trim());
  return clean.slice(clean.lastIndexOf("/") + 1).toLowerCase();
}

function nameKey(name: string): string {
  return name.trim().toLowerCase();
}

function folderOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash);
}

/** `folder` + `target` with `.` and `..` segments walked; a `..` above the root stays at the root. */
function joinPath(folder: string, target: string): string {
  const parts = folder ? folder.split("/") : [];
  for (const segment of target.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") parts.pop();
    else parts.push(segment);
  }
  return parts.join("/");
}

function first(set: Set<string>): string {
  return set.values().next().value as string;
}

function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

function removeFrom(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(value);
  if (set.size === 0) map.delete(key);
}
