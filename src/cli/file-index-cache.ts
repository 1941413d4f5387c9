// IndexCache as a folder in an OS cache folder, one per vault, one file per part (v8's serializer:
// typed arrays stay bytes, nothing is turned into JSON text). A part is written to a temporary file
// that is renamed into place, so a crash mid-write leaves the old part, not half a new one; a write
// that fails takes its temporary file away and throws.
//
// Each part starts with a checksum of what follows: the index checks that a part has a possible
// shape, but a flipped bit in a term or a posting's count makes another possible part (a word no
// longer found, a note scored 65,537 times too high), loaded without a word and saved again as it
// is. With the checksum such a part cannot be read, and the index is built again from the notes.
import { createHash } from "node:crypto";
import { rm, rmdir, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DefaultSerializer, deserialize } from "node:v8";
import type { IndexCache } from "../ports";
import { errorMessage } from "../text/error-message";
import { makeFolder } from "./make-folder";
import { readRegularFile } from "./regular-file";
import { ownFilesIn, removeLeftoverTemporaryFiles, replaceFileWhole } from "./temporary-files";

/** The default cache folder: XDG on Linux, Library/Caches on macOS, LOCALAPPDATA on Windows. */
export function defaultCacheDir(env: Record<string, string | undefined> = process.env): string {
  if (env.VAULT_RESEARCH_CACHE_DIR) return env.VAULT_RESEARCH_CACHE_DIR;
  if (process.platform === "win32") return path.join(env.LOCALAPPDATA ?? path.join(os.homedir(), "AppData", "Local"), "vault-research", "Cache");
  if (process.platform === "darwin") return path.join(os.homedir(), "Library", "Caches", "vault-research");
  return path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "vault-research");
}

/** The folder of one vault's cache (its index, vectors and query log): named after the vault's path. */
export function vaultCacheFolder(cacheDir: string, vaultRoot: string): string {
  const id = createHash("sha256").update(path.resolve(vaultRoot)).digest("hex").slice(0, 16);
  return path.join(cacheDir, `index-${id}`);
}

const PART_EXTENSION = ".v8";
/** The port's part names; anything else could climb out of the folder. */
const PART_NAME = /^[a-z0-9-]{1,64}$/;
/** A part's file: this tag, the SHA-256 of the rest, then the part as v8 serialised it. */
const PART_TAG = Buffer.from("VRP1");
const DIGEST_BYTES = 32;
const HEAD_BYTES = PART_TAG.length + DIGEST_BYTES;
/** Room for the head, written before the value and filled in after (see `encodePart`). */
const EMPTY_HEAD = new Uint8Array(HEAD_BYTES);
/** The first byte of what v8's serializer writes (its version tag): a part saved before the checksum. */
const V8_VERSION_TAG = 0xff;

export class FileIndexCache implements IndexCache {
  /** The folder of this vault's parts. */
  readonly folder: string;
  /** The manifest's file: where the cache is, for people (it exists once the index was saved). */
  readonly file: string;
  /** The single-file cache of earlier versions, removed at the first save. */
  private readonly legacyFile: string;
  /** Whether this cache looked for what a process killed mid-save left (once, at its first write). */
  private tidied = false;
  /** Whether the folder was made and the legacy file removed: once, not at each part (a save after
   * 500 edits at 100,000 notes writes 313 parts). */
  private ready = false;

  constructor(cacheDir: string, vaultRoot: string) {
    this.folder = vaultCacheFolder(cacheDir, vaultRoot);
    this.file = this.partFile("manifest");
    this.legacyFile = `${this.folder}.json`;
  }

  async read(name: string): Promise<unknown> {
    // Not a plain read: a named pipe in a part's place held it, and the command, for ever.
    const file = await readRegularFile(this.partFile(name));
    if (file.kind === "missing") return null;
    if (file.kind !== "read") throw new Error(`the part ${name} is not a file`);
    return decodePart(file.bytes, name);
  }

  async write(name: string, value: unknown): Promise<void> {
    const file = this.partFile(name);
    // Encoded in the turn it is handed over (the index pauses before a write for that).
    const bytes = encodePart(value);
    if (!this.ready) await this.makeFolder();
    try {
      await replaceFileWhole(file, bytes);
    } catch (error) {
      // The folder went since it was made (by hand, or another process's `clear`): made again, once.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      await this.makeFolder();
      await replaceFileWhole(file, bytes);
    }
    if (!this.ready) {
      await rm(this.legacyFile, { force: true });
      this.ready = true;
    }
  }

  private async makeFolder(): Promise<void> {
    await makeFolder(this.folder);
    if (!this.tidied) {
      this.tidied = true;
      await removeLeftoverTemporaryFiles(this.folder, isPartFile);
    }
  }

  /** The parts saved: files named as parts only (a sync tool's "manifest (1).v8" is not one). */
  async names(): Promise<string[]> {
    return ownFilesIn(this.folder, isPartFile, PART_EXTENSION);
  }

  /** The part's file's modification time: a save of another process may still be writing its segments. */
  async writtenAt(name: string): Promise<number | null> {
    return stat(this.partFile(name)).then((s) => s.mtimeMs, () => null);
  }

  async remove(names: string[]): Promise<void> {
    for (const name of names) await rm(this.partFile(name), { force: true });
  }

  /**
   * Drops every part, and the folder when nothing else is left in it: the vectors and the query log
   * live there too (file-vector-cache.ts, file-query-log.ts), and a rebuilt index must not take
   * hours of embeddings or the user's query history with it.
   */
  async clear(): Promise<void> {
    await this.remove(await this.names());
    await rm(this.legacyFile, { force: true });
    await rmdir(this.folder).catch(() => undefined);
    this.ready = false;
  }

  private partFile(name: string): string {
    if (!PART_NAME.test(name)) throw new Error(`"${name}" is not a name for a part of the index cache.`);
    return path.join(this.folder, `${name}${PART_EXTENSION}`);
  }
}

function isPartFile(file: string): boolean {
  return file.endsWith(PART_EXTENSION) && PART_NAME.test(file.slice(0, -PART_EXTENSION.length));
}

function digestOf(bytes: Uint8Array): Buffer {
  return createHash("sha256").update(bytes).digest();
}

/**
 * A part's file as it is written: its tag, the checksum, then the value as v8 serialises it. The
 * serialiser is handed room for the head first and fills it in after, so the part's bytes are made
 * once (`serialize` then `Buffer.concat` held each part twice). Its payload is `serialize(value)`'s
 * to the byte: the head is of even length, and v8 aligns a two-byte string only to an even offset.
 */
export function encodePart(value: unknown): Buffer {
  const serializer = new DefaultSerializer();
  serializer.writeRawBytes(EMPTY_HEAD);
  serializer.writeHeader();
  serializer.writeValue(value);
  const bytes = serializer.releaseBuffer();
  PART_TAG.copy(bytes, 0);
  digestOf(bytes.subarray(HEAD_BYTES)).copy(bytes, PART_TAG.length);
  return bytes;
}

/** The value a part's file holds; throws, saying what is wrong, when it is not as written. */
export function decodePart(bytes: Buffer, name: string): unknown {
  const payload = checkedPayload(bytes, name);
  try {
    return deserialize(payload);
  } catch (error) {
    throw new Error(`the part ${name} is corrupt (${errorMessage(error)})`);
  }
}

/** The part's v8 bytes, once its tag and checksum say they are as written; else why not. */
function checkedPayload(bytes: Buffer, name: string): Buffer {
  if (bytes.length > 0 && bytes[0] === V8_VERSION_TAG) throw new Error(`the part ${name} was saved by an earlier version, without a checksum`);
  const tag = PART_TAG.subarray(0, Math.min(bytes.length, PART_TAG.length));
  if (!bytes.subarray(0, PART_TAG.length).equals(tag)) throw new Error(`the part ${name} is corrupt (it is not a part of this cache)`);
  if (bytes.length < HEAD_BYTES) throw new Error(`the part ${name} is corrupt (it is cut short)`);
  const payload = bytes.subarray(HEAD_BYTES);
  if (!digestOf(payload).equals(bytes.subarray(PART_TAG.length, HEAD_BYTES))) throw new Error(`the part ${name} is corrupt (its checksum does not match)`);
  return payload;
}
