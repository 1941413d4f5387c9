// IndexCache as a file in an OS cache folder, one file per vault. Writes go to a temporary file
// that is renamed into place, so a crash mid-write leaves the old cache, not half a new one.
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { IndexCache } from "../ports";

/** The default cache folder: XDG on Linux, Library/Caches on macOS, LOCALAPPDATA on Windows. */
export function defaultCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.VAULT_RESEARCH_CACHE_DIR) return env.VAULT_RESEARCH_CACHE_DIR;
  if (process.platform === "win32") return path.join(env.LOCALAPPDATA ?? path.join(os.homedir(), "AppData", "Local"), "vault-research", "Cache");
  if (process.platform === "darwin") return path.join(os.homedir(), "Library", "Caches", "vault-research");
  return path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "vault-research");
}

export class FileIndexCache implements IndexCache {
  readonly file: string;

  constructor(cacheDir: string, vaultRoot: string) {
    const id = createHash("sha256").update(path.resolve(vaultRoot)).digest("hex").slice(0, 16);
    this.file = path.join(cacheDir, `index-${id}.json`);
  }

  async load(): Promise<string | null> {
    try {
      return await readFile(this.file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async save(data: string): Promise<void> {
    await mkdir(path.dirname(this.file), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    await writeFile(tmp, data, "utf8");
    await rename(tmp, this.file);
  }

  async clear(): Promise<void> {
    await rm(this.file, { force: true });
  }
}
