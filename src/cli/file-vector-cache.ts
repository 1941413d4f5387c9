// The VectorCache port as one file in the vault's cache folder (the folder the index cache uses,
// never the vault: DESIGN invariant 8). Written to a temporary file that is renamed into place, so
// a crash mid-write leaves the old vectors, not half of new ones, and a save that fails takes its
// temporary file away and throws; the first save also takes away what a process killed mid-save
// left (removeLeftoverTemporaryFiles). A file that cannot be read, or is
// damaged, becomes an empty store and a reason (readVectors), never a crash.
import { mkdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import type { VectorCache } from "../index/embeddings/vector-cache";
import { readVectors, type VectorLoad } from "../index/embeddings/vector-file";
import { errorMessage } from "../text/error-message";
import { removeLeftoverTemporaryFiles, replaceFileWhole } from "./temporary-files";

export const VECTOR_FILE_NAME = "vectors.bin";

export class FileVectorCache implements VectorCache {
  readonly file: string;
  /** Whether this cache looked for what a process killed mid-save left (once, at its first save). */
  private tidied = false;

  /** `folder`: the vault's cache folder (FileIndexCache.folder). */
  constructor(readonly folder: string) {
    this.file = path.join(folder, VECTOR_FILE_NAME);
  }

  async load(): Promise<Uint8Array | null> {
    try {
      return new Uint8Array(await readFile(this.file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async save(bytes: Uint8Array): Promise<void> {
    await mkdir(this.folder, { recursive: true });
    if (!this.tidied) {
      this.tidied = true;
      await removeLeftoverTemporaryFiles(this.folder, (file) => file === VECTOR_FILE_NAME);
    }
    await replaceFileWhole(this.file, bytes);
  }

  async clear(): Promise<void> {
    await rm(this.file, { force: true });
  }
}

/** The stored vectors for `model`, or an empty store and why (a file that cannot even be read included). */
export async function loadVectors(cache: VectorCache, model: string): Promise<VectorLoad> {
  try {
    return readVectors(await cache.load(), model);
  } catch (error) {
    return { store: readVectors(null, model).store, reset: { kind: "unreadable", detail: errorMessage(error) } };
  }
}
