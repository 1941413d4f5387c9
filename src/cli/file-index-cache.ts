// IndexCache as a folder in an OS cache folder, one per vault, one file per part (v8's serializer:
// typed arrays stay bytes, nothing is turned into JSON text). A part is written to a temporary file
// that is renamed into place, so a crash mid-write leaves the old part, not half a new one; a write
// that fails takes its temporary file away and throws.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { deserialize, serialize } from "node:v8";
import type { IndexCache } from "../ports";
import { errorMessage } from "../text/error-message";
import { replaceFileWhole } from "./temporary-files";

/** The default cache folder: XDG on Linux, Library/Caches on macOS, LOCALAPPDATA on Windows. */
export function defaultCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.VAULT_RESEARCH_CACHE_DIR) return env.VAULT_RESEARCH_CACHE_DIR;
  if (process.platform === "win32") return path.join(env.LOCALAPPDATA ?? path.join(os.homedir(), "AppData", "Local"), "vault-research", "Cache");
  if (process.platform === "darwin") return path.join(os.homedir(), "Library", "Caches", "vault-research");
  return path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "vault-research");
}

const PART_EXTENSION = ".v8";
/** The port's part names; anything else could climb out of the folder. */
const PART_NAME = /^[a-z0-9-]{1,64}$/;

export class FileIndexCache implements IndexCache {
  /** The folder of this vault's parts. */
  readonly folder: string;
  /** The manifest's file: where the cache is, for people (it exists once the index was saved). */
  readonly file: string;
  /** The single-file cache of earlier versions, removed at the first save. */
  private readonly legacyFile: string;

  constructor(cacheDir: string, vaultRoot: string) {
    const id = createHash("sha256").update(path.resolve(vaultRoot)).digest("hex").slice(0, 16);
    this.folder = path.join(cacheDir, `index-${id}`);
    this.file = this.partFile("manifest");
    this.legacyFile = path.join(cacheDir, `index-${id}.json`);
  }

  async read(name: string): Promise<unknown> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.partFile(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
    try {
      return deserialize(bytes);
    } catch (error) {
      throw new Error(`the part ${name} is corrupt (${errorMessage(error)})`);
    }
  }

  async write(name: string, value: unknown): Promise<void> {
    const file = this.partFile(name);
    await mkdir(this.folder, { recursive: true });
    await replaceFileWhole(file, serialize(value));
    await rm(this.legacyFile, { force: true });
  }

  async names(): Promise<string[]> {
    let files: string[];
    try {
      files = await readdir(this.folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    return files.filter((f) => f.endsWith(PART_EXTENSION)).map((f) => f.slice(0, -PART_EXTENSION.length));
  }

  async remove(names: string[]): Promise<void> {
    for (const name of names) await rm(this.partFile(name), { force: true });
  }

  async clear(): Promise<void> {
    await rm(this.folder, { recursive: true, force: true });
    await rm(this.legacyFile, { force: true });
  }

  private partFile(name: string): string {
    if (!PART_NAME.test(name)) throw new Error(`"${name}" is not a name for a part of the index cache.`);
    return path.join(this.folder, `${name}${PART_EXTENSION}`);
  }
}
