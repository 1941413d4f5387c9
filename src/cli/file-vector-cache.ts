// The VectorCache port as files in the vault's cache folder (the folder the index cache uses,
// never the vault: DESIGN invariant 8): `vectors.bin` (the root part, where earlier versions kept
// every vector in one file) and `vectors-<token>-<bucket>.bin`, one a part (vector-parts.ts names
// them, and knows the names earlier versions gave: isVectorPartName). Not
// `.v8`, so the index, which takes away the parts it does not know, never lists them. Each is
// written to a temporary file that is renamed into place, so a crash mid-write leaves the old part,
// not half of a new one, and a save that fails takes its temporary file away and throws; the first
// save also takes away what a process killed mid-save left (removeLeftoverTemporaryFiles). Parts
// that cannot be read, or are damaged, become an empty store and a reason, never a crash; the two
// differ (`reset.kind` "unreadable" names the file): vectors that cannot be read now may be read
// again later, and `embed` refuses rather than pay to embed every note again over them.
import { rm, stat } from "node:fs/promises";
import path from "node:path";
import type { VectorCache } from "../index/embeddings/vector-cache";
import { isVectorPartName, loadStoredVectors, ROOT_PART } from "../index/embeddings/vector-parts";
import type { VectorLoad } from "../index/embeddings/vector-file";
import { VectorStore } from "../index/embeddings/vector-store";
import { errorMessage } from "../text/error-message";
import { makeFolder } from "./make-folder";
import { notAFile, readRegularFile } from "./regular-file";
import { whyNot } from "./path-kind";
import { ownFilesIn, removeLeftoverTemporaryFiles, replaceFileWhole } from "./temporary-files";

const EXTENSION = ".bin";
export const VECTOR_FILE_NAME = `${ROOT_PART}${EXTENSION}`;

export class FileVectorCache implements VectorCache {
  /** The root part's file: where the vectors are, for people. */
  readonly file: string;
  /** Whether this cache looked for what a process killed mid-save left (once, at its first save). */
  private tidied = false;

  /** `folder`: the vault's cache folder (FileIndexCache.folder). */
  constructor(readonly folder: string) {
    this.file = path.join(folder, VECTOR_FILE_NAME);
  }

  /** A part's bytes, or null when it is not there; rejects naming the file when it is there and cannot be read. */
  async read(name: string): Promise<Uint8Array | null> {
    const file = this.partFile(name);
    try {
      // Not a plain read: a named pipe in the part's place held it, and the search, for ever.
      const read = await readRegularFile(file);
      if (read.kind === "missing") return null;
      if (read.kind !== "read") throw notAFile(file);
      return new Uint8Array(read.bytes);
    } catch (error) {
      if (error instanceof Error && !("code" in error)) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return null;
      // Node's words for a folder in the part's place ("EISDIR: illegal operation on a directory, read") name no file.
      throw new Error(`${file} ${whyNot("file", file) ?? `cannot be read (${code ?? errorMessage(error)})`}`);
    }
  }

  async write(name: string, bytes: Uint8Array): Promise<void> {
    const file = this.partFile(name);
    // A level at a time, and a refusal in the disk's own words (a read-only disk's EROFS, a file in the way named as one): make-folder.ts.
    await makeFolder(this.folder);
    if (!this.tidied) {
      this.tidied = true;
      await removeLeftoverTemporaryFiles(this.folder, isVectorFile);
    }
    await replaceFileWhole(file, bytes);
  }

  async names(): Promise<string[]> {
    return ownFilesIn(this.folder, isVectorFile, EXTENSION);
  }

  /** The part's file's modification time: another process's save may be writing its parts before its root. */
  async writtenAt(name: string): Promise<number | null> {
    return stat(this.partFile(name)).then((s) => s.mtimeMs, () => null);
  }

  async remove(names: string[]): Promise<void> {
    for (const name of names) await rm(this.partFile(name), { force: true });
  }

  async clear(): Promise<void> {
    await this.remove(await this.names());
  }

  /**
   * Bytes the vectors take on disk: every part's file, or only those `among` names (0 for a folder
   * that cannot be listed: a report of sizes is no reason to fail).
   */
  async storedBytes(among?: ReadonlySet<string>): Promise<number> {
    let total = 0;
    for (const name of await this.names().catch(() => [] as string[])) {
      if (among && !among.has(name)) continue;
      total += await stat(this.partFile(name)).then((s) => (s.isFile() ? s.size : 0), () => 0);
    }
    return total;
  }

  private partFile(name: string): string {
    if (!isVectorName(name)) throw new Error(`"${name}" is not a name for a part of the stored vectors.`);
    return path.join(this.folder, `${name}${EXTENSION}`);
  }
}

/** The port's names for the vectors' parts; anything else could climb out of the folder or be the index's. */
function isVectorName(name: string): boolean {
  return name === ROOT_PART || isVectorPartName(name);
}

function isVectorFile(file: string): boolean {
  return file.endsWith(EXTENSION) && isVectorName(file.slice(0, -EXTENSION.length));
}

/** The stored vectors for `model`, or an empty store and why (a file that cannot even be read included). */
export async function loadVectors(cache: VectorCache, model: string): Promise<VectorLoad> {
  try {
    return await loadStoredVectors(cache, model);
  } catch (error) {
    return { store: new VectorStore(model), reset: { kind: "unreadable", detail: errorMessage(error) } };
  }
}
