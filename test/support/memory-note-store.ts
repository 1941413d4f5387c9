// An in-memory vault at the NoteStore port: what the plugin's Vault and the CLI's folder do, minus
// the disk. `create` refuses to overwrite (the port's promise), and every write is remembered so a
// test can say exactly what a run put into the vault.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { NoteFileInfo, NoteStore } from "../../src/ports";

export class MemoryNoteStore implements NoteStore {
  /** The notes themselves; tests may add one behind the store's back (another writer). */
  readonly files = new Map<string, { text: string; mtime: number }>();
  /** Paths passed to `create`, in order, including refused ones. */
  readonly createCalls: string[] = [];
  /** Paths `create` actually wrote. */
  readonly created: string[] = [];

  constructor(initial: Record<string, string> = {}) {
    for (const [p, text] of Object.entries(initial)) this.files.set(p, { text, mtime: 1_700_000_000_000 });
  }

  /** Every `.md` file under `dir`, with vault-relative forward-slash paths. */
  static fromFolder(dir: string): MemoryNoteStore {
    const notes: Record<string, string> = {};
    const walk = (folder: string) => {
      for (const name of readdirSync(folder)) {
        const full = path.join(folder, name);
        if (statSync(full).isDirectory()) walk(full);
        else if (name.endsWith(".md")) notes[path.relative(dir, full).split(path.sep).join("/")] = readFileSync(full, "utf8");
      }
    };
    walk(dir);
    return new MemoryNoteStore(notes);
  }

  async list(): Promise<NoteFileInfo[]> {
    return [...this.files].filter(([p]) => p.endsWith(".md")).map(([p, f]) => ({ path: p, mtime: f.mtime, size: f.text.length }));
  }

  async read(p: string): Promise<string> {
    const file = this.files.get(p);
    if (!file) throw new Error(`No note at ${p}`);
    return file.text;
  }

  async stat(p: string): Promise<NoteFileInfo | null> {
    const file = this.files.get(p);
    return file ? { path: p, mtime: file.mtime, size: file.text.length } : null;
  }

  async exists(p: string): Promise<boolean> {
    return this.files.has(p);
  }

  async create(p: string, content: string): Promise<void> {
    this.createCalls.push(p);
    if (this.files.has(p)) throw new Error(`${p} already exists; a note is never overwritten`);
    this.files.set(p, { text: content, mtime: 1_700_000_000_000 + this.created.length + 1 });
    this.created.push(p);
  }

  /** Calls to `create`, refused ones included. */
  get creates(): number {
    return this.createCalls.length;
  }

  /** What the plugin's Vault.process and the CLI's read-then-write do (e.g. for the trace note). */
  update = async (p: string, change: (text: string) => string): Promise<void> => {
    const file = this.files.get(p);
    if (!file) throw new Error(`No note at ${p}`);
    this.files.set(p, { text: change(file.text), mtime: file.mtime + 1 });
  };

  /** The text of a note, or undefined (synchronous, for assertions). */
  text(p: string): string | undefined {
    return this.files.get(p)?.text;
  }

  paths(): string[] {
    return [...this.files.keys()];
  }
}
