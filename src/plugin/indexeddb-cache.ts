// IndexCache over IndexedDB: one database per vault, one record per cache format version. The
// cache is only ever a shortcut: when IndexedDB is missing, blocked, full or corrupt, the plugin
// carries on without it (a warning in the console, a rebuild from the notes) and never crashes.
import type { IndexCache } from "../ports";

/** Bump when the stored shape changes in a way the index cannot detect itself. */
export const INDEX_CACHE_FORMAT = 1;

const STORE = "index";

export class IndexedDbCache implements IndexCache {
  private readonly dbName: string;
  private readonly key = `index-v${INDEX_CACHE_FORMAT}`;
  private db: Promise<IDBDatabase | null> | null = null;

  /**
   * @param vaultId stable id of the vault (the app id, else its name), so two vaults never share a cache.
   * @param factory IndexedDB itself; tests pass a stand-in.
   */
  constructor(
    vaultId: string,
    private readonly factory: IDBFactory | undefined = typeof indexedDB === "undefined" ? undefined : indexedDB,
  ) {
    this.dbName = `vault-research-cache/${vaultId}`;
  }

  async load(): Promise<string | null> {
    const value = await this.run("readonly", "read the index cache", (store) => store.get(this.key));
    if (value === undefined || value === null) return null;
    if (typeof value !== "string") {
      console.warn("Vault Research: the index cache held something unexpected; it will be rebuilt.");
      return null;
    }
    return value;
  }

  async save(data: string): Promise<void> {
    await this.run("readwrite", "save the index cache", (store) => store.put(data, this.key));
  }

  async clear(): Promise<void> {
    await this.run("readwrite", "clear the index cache", (store) => store.clear());
  }

  /** Closes the database so another tab or a newer version can upgrade it. */
  close(): void {
    void this.db?.then((db) => db?.close());
    this.db = null;
  }

  private async run(mode: IDBTransactionMode, what: string, action: (store: IDBObjectStore) => IDBRequest): Promise<unknown> {
    const db = await this.open();
    if (!db) return undefined;
    try {
      return await new Promise((resolve, reject) => {
        const tx = db.transaction(STORE, mode);
        const request = action(tx.objectStore(STORE));
        let result: unknown;
        request.onsuccess = () => {
          result = request.result;
        };
        tx.oncomplete = () => resolve(result);
        tx.onerror = () => reject(asError(tx.error ?? request.error, "transaction failed"));
        tx.onabort = () => reject(asError(tx.error, "transaction aborted"));
      });
    } catch (error) {
      warn(`could not ${what}`, error);
      return undefined;
    }
  }

  private open(): Promise<IDBDatabase | null> {
    this.db ??= new Promise<IDBDatabase | null>((resolve) => {
      const factory = this.factory;
      if (!factory) {
        warn("IndexedDB is not available", null);
        resolve(null);
        return;
      }
      try {
        const request = factory.open(this.dbName, 1);
        request.onupgradeneeded = () => {
          if (!request.result.objectStoreNames.contains(STORE)) request.result.createObjectStore(STORE);
        };
        request.onsuccess = () => {
          const db = request.result;
          // Another window upgrading the database must not wait on us.
          db.onversionchange = () => db.close();
          resolve(db);
        };
        request.onerror = () => {
          warn("could not open the index cache", request.error);
          resolve(null);
        };
        request.onblocked = () => {
          warn("the index cache is blocked by another window", null);
          resolve(null);
        };
      } catch (error) {
        warn("could not open the index cache", error);
        resolve(null);
      }
    });
    return this.db;
  }
}

function asError(error: unknown, fallback: string): Error {
  return error instanceof Error ? error : new Error(fallback);
}

function warn(what: string, error: unknown): void {
  const detail = error instanceof Error || error instanceof DOMException ? `: ${error.message}` : "";
  console.warn(`Vault Research: ${what}${detail}; the index is built from the notes instead.`);
}
