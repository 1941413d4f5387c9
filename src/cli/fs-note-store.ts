// NoteStore over a folder on disk: the CLI's vault. Hidden folders (`.obsidian`, `.git`, `.trash`)
// and node_modules are skipped, as Obsidian itself does not show them.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, realpath, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import type { NoteFileInfo, NoteStore } from "../ports";

export class FsNoteStore implements NoteStore {
  readonly root: string;
  private realRoot: string | undefined;

  constructor(root: string) {
    this.root = path.resolve(root);
  }

  async list(): Promise<NoteFileInfo[]> {
    const out: NoteFileInfo[] = [];
    const walk = async (dir: string, rel: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      const files: Promise<void>[] = [];
      for (const entry of entries) {
        if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
        const abs = path.join(dir, entry.name);
        const relPath = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          files.push(walk(abs, relPath));
        } else if (entry.isFile() && entry.name.toLowerCase().endsWith(".md")) {
          files.push(
            stat(abs).then(
              (s) => {
                out.push({ path: relPath, mtime: Math.floor(s.mtimeMs), size: s.size });
              },
              () => undefined,
            ),
          );
        }
      }
      await Promise.all(files);
    };
    await walk(this.root, "");
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out;
  }

  async read(notePath: string): Promise<string> {
    const abs = this.resolve(notePath);
    // A link inside the vault may point anywhere; only what really lies inside the vault is read.
    const real = await realpath(abs);
    const realRoot = (this.realRoot ??= await realpath(this.root));
    if (real !== realRoot && !real.startsWith(realRoot + path.sep)) throw new Error(`${notePath} links to a file outside the vault.`);
    return readFile(real, "utf8");
  }

  async stat(notePath: string): Promise<NoteFileInfo | null> {
    try {
      const s = await stat(this.resolve(notePath));
      return { path: notePath, mtime: Math.floor(s.mtimeMs), size: s.size };
    } catch {
      return null;
    }
  }

  async exists(notePath: string): Promise<boolean> {
    return existsSync(this.resolve(notePath));
  }

  async create(notePath: string, content: string): Promise<void> {
    const abs = this.resolve(notePath);
    await mkdir(path.dirname(abs), { recursive: true });
    // "wx" fails if the file exists: the plugin never overwrites a note.
    await writeFile(abs, content, { encoding: "utf8", flag: "wx" });
  }

  /** Vault path → absolute path, refusing anything that would escape the vault. */
  private resolve(notePath: string): string {
    const abs = path.resolve(this.root, notePath);
    if (abs !== this.root && !abs.startsWith(this.root + path.sep)) {
      throw new Error(`Path ${notePath} is outside the vault.`);
    }
    return abs;
  }
}
