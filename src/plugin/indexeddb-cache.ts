// IndexCache over IndexedDB: one database per vault, one record per part of the saved index (a
// manifest and segments), stored as they are (IndexedDB copies plain data and typed arrays itself).
// The cache is only ever a shortcut: when IndexedDB is missing, blocked or corrupt, the plugin carries
// on without it (a warning in the console, a rebuild from the notes) and never crashes. A write that
// fails (a full disk, or a database that could not be opened) says so, so the index does not record
// a save that did not happen and the embedding keeper can tell the user the vectors are not kept;
// so does a listing that fails, which the index's save would take for a cache holding nothing.
//
// Each part's write time is kept beside it (a record of its own, written in the same transaction):
// the index's save takes away a part another session left unlisted (killed mid-save) once it was
// written ten minutes ago. Without it, such a part went only after two saves of one session ten
// minutes apart, which a short session never makes, and every session killed mid-save added its own.
//
// The index's parts are kept with their SHA-256 (part-digest.ts), as the CLI's are: a part that
// comes back changed is refused, and the index is built again from the notes rather than loaded
// with wrong postings. The vectors carry their own (vector-parts.ts); the query log is text.
import type { IndexCache } from "../ports";
import { PartRefused } from "../index/rebuild-reason";
import { digestOfValue, sameDigest } from "./part-digest";

/** Bump when the stored shape changes in a way the index cannot detect itself. */
export const INDEX_CACHE_FORMAT = 2;

const STORE = "index";
/** Every key of this format starts so; other keys are earlier formats' records. */
const KEY_PREFIX = `v${INDEX_CACHE_FORMAT}/`;
/** Each part's write time (wall-clock milliseconds) is a record under this prefix and its name. */
const WRITTEN_AT_PREFIX = `written-at-v${INDEX_CACHE_FORMAT}/`;
/** The single record of format 1, dropped at the first write. */
const LEGACY_KEY = "index-v1";

/** Which database a cache is, in its name and in the words of its warnings. */
export interface IndexedDbCacheKind {
  /** The database's name before `/<vault id>`. */
  database: string;
  /** What it is, in warnings: "the index cache". */
  what: string;
  /** What happens without it, in warnings: "the index is built from the notes instead". */
  fallback: string;
  /** Each record is the value and its SHA-256, checked when it is read (the index's parts). */
  checksummed?: boolean;
  /** Each part's write time is kept beside it, for `writtenAt` (the index's parts: its save tidies by it). */
  dated?: boolean;
}

const INDEX_CACHE_KIND: IndexedDbCacheKind = { database: "vault-research-cache", what: "the index cache", fallback: "the index is built from the notes instead", checksummed: true, dated: true };

/** A checksummed record: the part, and the SHA-256 of it as part-digest.ts writes it out. */
interface CheckedRecord {
  sha256: Uint8Array;
  part: unknown;
}

export class IndexedDbCache implements IndexCache {
  private readonly dbName: string;
  private db: Promise<IDBDatabase | null> | null = null;
  /** `close` was called: the connection is let go whenever no work is under way. */
  private closing = false;
  /** Transactions under way or about to start (their connection is being opened). */
  private busy = 0;

  /**
   * @param vaultId stable id of the vault (the app id, else its name), so two vaults never share a cache.
   * @param factory IndexedDB itself; tests pass a stand-in.
   * @param kind another database of the same shape (the vectors have their own).
   * @param now the wall clock a part's write time is read from (the one the index's saves are dated by).
   */
  constructor(
    vaultId: string,
    private readonly factory: IDBFactory | undefined = typeof indexedDB === "undefined" ? undefined : indexedDB,
    private readonly kind: IndexedDbCacheKind = INDEX_CACHE_KIND,
    private readonly now: () => number = Date.now,
  ) {
    this.dbName = `${kind.database}/${vaultId}`;
  }

  async read(name: string): Promise<unknown> {
    const record = await this.quietly(`read ${this.kind.what}`, undefined, () => this.run("readonly", (store) => [store.get(KEY_PREFIX + name)]));
    if (record === undefined || record === null) return null;
    const value = await this.partOf(name, record);
    if (typeof value !== "object" || value === null) {
      console.warn(`Vault Research: ${this.kind.what} held something unexpected; ${this.kind.fallback}.`);
      return null;
    }
    return value;
  }

  /**
   * As `read`, but a read that fails rejects instead of reading as nothing stored: for a caller that
   * writes back what it read (the query log appends to its text), which would otherwise replace
   * everything stored with its one new line.
   */
  async readOrFail(name: string): Promise<unknown> {
    const record = await this.run("readonly", (store) => [store.get(KEY_PREFIX + name)]);
    if (record === undefined || record === null) return null;
    const value = await this.partOf(name, record);
    return value !== null && typeof value === "object" ? value : null;
  }

  async write(name: string, value: unknown): Promise<void> {
    try {
      const record = this.kind.checksummed ? ({ sha256: await digestOfValue(value), part: value } satisfies CheckedRecord) : value;
      const writtenAt = this.kind.dated ? this.now() : null;
      await this.run("readwrite", (store) => [store.put(record, KEY_PREFIX + name), store.delete(LEGACY_KEY), ...(writtenAt === null ? [] : [store.put(writtenAt, WRITTEN_AT_PREFIX + name)])]);
    } catch (error) {
      this.warn(`could not save ${this.kind.what}`, error);
      throw error;
    }
  }

  /**
   * Rejects (with a warning) when the listing fails: read as "nothing stored", it had the index's
   * save take every segment it keeps as taken away by another save, and write the whole index again.
   */
  async names(): Promise<string[]> {
    try {
      return await this.namesOrFail();
    } catch (error) {
      this.warn(`could not list ${this.kind.what}`, error);
      throw error;
    }
  }

  /** As `names`, without the warning (the vectors' cache lists through this). */
  async namesOrFail(): Promise<string[]> {
    return partNames(await this.run("readonly", (store) => [store.getAllKeys()]));
  }

  /** When the part was written, or null when that is not known (a part of a version that kept no time, or a read that failed). */
  async writtenAt(name: string): Promise<number | null> {
    if (!this.kind.dated) return null;
    const time = await this.run("readonly", (store) => [store.get(WRITTEN_AT_PREFIX + name)]).catch(() => null);
    return typeof time === "number" && Number.isFinite(time) ? time : null;
  }

  async remove(names: string[]): Promise<void> {
    if (names.length === 0) return;
    await this.quietly(`tidy ${this.kind.what}`, undefined, () => this.run("readwrite", (store) => names.flatMap((name) => (this.kind.dated ? [store.delete(KEY_PREFIX + name), store.delete(WRITTEN_AT_PREFIX + name)] : [store.delete(KEY_PREFIX + name)]))));
  }

  async clear(): Promise<void> {
    await this.quietly(`clear ${this.kind.what}`, undefined, () => this.run("readwrite", (store) => [store.clear()]));
  }

  /** Whether the database can be opened (IndexedDB present, not blocked): without it a write keeps nothing. */
  async available(): Promise<boolean> {
    this.busy++;
    try {
      return (await this.open()) !== null;
    } finally {
      this.busy--;
      this.releaseWhenIdle();
    }
  }

  /**
   * For the plugin's unload: the connection is closed as soon as the work under way is done (the
   * last save an unload starts included), and any later work opens one for itself and closes it
   * after, so no connection outlives the plugin. Before, a closed cache opened a new connection at
   * its next use and kept it: disabled, or replaced by an update, the plugin left it open.
   */
  close(): void {
    this.closing = true;
    this.releaseWhenIdle();
  }

  /**
   * The part a record holds, once its checksum says it is as written (for a checksummed kind).
   * Rejects with the reason when it is not (`PartRefused`): the index then rebuilds what it held from
   * the notes, where loading it would have searched with wrong postings. A record of an earlier
   * version, which kept no checksums, is an upgrade and says nothing; a damaged one is warned of.
   */
  private async partOf(name: string, record: unknown): Promise<unknown> {
    if (!this.kind.checksummed) return record;
    if (isCheckedRecord(record) && (await digestMatches(record))) return record.part;
    if (isEarlierVersionsPart(record)) throw new PartRefused({ kind: "saved_without_checksums" }, `the part ${name} was saved by an earlier version, without a checksum`);
    const detail = isCheckedRecord(record) ? `the part ${name} does not match its checksum` : `the part ${name} is not stored with its checksum`;
    console.warn(`Vault Research: ${this.kind.what}: ${detail}; what it held is made again from the notes.`);
    throw new PartRefused({ kind: "corrupt", detail }, detail);
  }

  /** `work`'s result, or `fallback` (with a warning) when it fails. */
  private async quietly(what: string, fallback: unknown, work: () => Promise<unknown>): Promise<unknown> {
    try {
      return await work();
    } catch (error) {
      this.warn(`could not ${what}`, error);
      return fallback;
    }
  }

  /** Runs requests in one transaction; the first request's result once it completes. Rejects without a database. */
  private async run(mode: IDBTransactionMode, requests: (store: IDBObjectStore) => IDBRequest[]): Promise<unknown> {
    this.busy++;
    try {
      return await this.transact(mode, requests);
    } finally {
      this.busy--;
      this.releaseWhenIdle();
    }
  }

  private async transact(mode: IDBTransactionMode, requests: (store: IDBObjectStore) => IDBRequest[]): Promise<unknown> {
    const db = await this.open();
    if (!db) throw new Error(this.factory ? `${this.kind.what} could not be opened` : "IndexedDB is not available");
    return new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const [first, ...rest] = requests(tx.objectStore(STORE));
      let result: unknown;
      first.onsuccess = () => {
        result = first.result;
      };
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(asError(tx.error ?? first.error ?? rest.find((r) => r.error)?.error, "transaction failed"));
      tx.onabort = () => reject(asError(tx.error, "transaction aborted"));
    });
  }

  /** Closed, once closing and no work is under way; the next use opens a connection of its own. */
  private releaseWhenIdle(): void {
    if (!this.closing || this.busy > 0 || !this.db) return;
    const db = this.db;
    this.db = null;
    void db.then((connection) => connection?.close());
  }

  private open(): Promise<IDBDatabase | null> {
    if (this.db) return this.db;
    const forget = (): void => {
      if (this.db === opening) this.db = null;
    };
    const opening = this.openDatabase(forget);
    this.db = opening;
    // A failed open is not kept (unless there is no IndexedDB at all): the next read or write, a
    // save tried again, opens it anew rather than failing for the rest of the session.
    if (this.factory) void opening.then((db) => db ?? forget());
    return opening;
  }

  /** The connection, or null (with a warning); `closed` is called when another window makes us close it. */
  private openDatabase(closed: () => void): Promise<IDBDatabase | null> {
    return new Promise<IDBDatabase | null>((resolve) => {
      const factory = this.factory;
      if (!factory) {
        this.warn("IndexedDB is not available", null);
        resolve(null);
        return;
      }
      let settled = false;
      const settle = (db: IDBDatabase | null): void => {
        settled = true;
        resolve(db);
      };
      try {
        const request = factory.open(this.dbName, 1);
        request.onupgradeneeded = () => {
          if (!request.result.objectStoreNames.contains(STORE)) request.result.createObjectStore(STORE);
        };
        request.onsuccess = () => {
          const db = request.result;
          // Opened after all, once a block we gave up on was lifted: the next use opens its own.
          if (settled) return db.close();
          // Another window upgrading or deleting the database must not wait on us; our next
          // read or write opens it again (a closed connection would fail them all session long).
          db.onversionchange = () => {
            db.close();
            closed();
          };
          settle(db);
        };
        request.onerror = () => {
          this.warn(`could not open ${this.kind.what}`, request.error);
          settle(null);
        };
        request.onblocked = () => {
          this.warn(`${this.kind.what} is blocked by another window`, null);
          settle(null);
        };
      } catch (error) {
        this.warn(`could not open ${this.kind.what}`, error);
        settle(null);
      }
    });
  }

  private warn(what: string, error: unknown): void {
    const detail = error instanceof Error || error instanceof DOMException ? `: ${error.message}` : "";
    console.warn(`Vault Research: ${what}${detail}; ${this.kind.fallback}.`);
  }
}

/** A part as versions before checksums stored it: the part's own object, holding no checksum. */
function isEarlierVersionsPart(record: unknown): boolean {
  return typeof record === "object" && record !== null && !Array.isArray(record) && !ArrayBuffer.isView(record) && !Object.hasOwn(record, "sha256");
}

function isCheckedRecord(record: unknown): record is CheckedRecord {
  if (typeof record !== "object" || record === null) return false;
  const { sha256 } = record as Partial<CheckedRecord>;
  return sha256 instanceof Uint8Array && sha256.length === 32 && Object.hasOwn(record, "part");
}

/** Whether the part is as its checksum says; a part that cannot even be written out is not. */
async function digestMatches(record: CheckedRecord): Promise<boolean> {
  try {
    return sameDigest(await digestOfValue(record.part), record.sha256);
  } catch {
    return false;
  }
}

/** This format's part names among a store's keys. */
function partNames(keys: unknown): string[] {
  if (!Array.isArray(keys)) return [];
  return keys.filter((k): k is string => typeof k === "string" && k.startsWith(KEY_PREFIX)).map((k) => k.slice(KEY_PREFIX.length));
}

function asError(error: unknown, fallback: string): Error {
  return error instanceof Error ? error : new Error(fallback);
}
