// VectorCache over IndexedDB: the dial's vectors, one blob per vault (index/embeddings/vector-file.ts
// makes and checks it), in a database of their own beside the index cache's, so clearing or
// rebuilding the index never throws the vectors away (embedding them again takes hours), and the
// index's tidy-up of parts it does not know never sees them. Never the vault (DESIGN invariant 8).
import type { VectorCache } from "../index/embeddings/vector-cache";
import { errorMessage } from "../text/error-message";
import { IndexedDbCache } from "./indexeddb-cache";

const RECORD = "vectors";

export class IndexedDbVectorCache implements VectorCache {
  private readonly records: IndexedDbCache;
  private readonly hasIndexedDb: boolean;

  /** @param factory IndexedDB itself; tests pass a stand-in. */
  constructor(vaultId: string, factory?: IDBFactory) {
    const idb = factory ?? (typeof indexedDB === "undefined" ? undefined : indexedDB);
    this.hasIndexedDb = idb !== undefined;
    this.records = new IndexedDbCache(vaultId, idb, {
      database: "vault-research-vectors",
      what: "the stored vectors",
      fallback: "notes are embedded again as needed",
    });
  }

  /**
   * The stored blob, or null (none, or not bytes: vector-file.ts says what it finds). A read that
   * fails rejects: read as "nothing stored", the next save would put a few new notes' vectors over
   * hours of embedding.
   */
  async load(): Promise<Uint8Array | null> {
    // Without IndexedDB on this device nothing was ever stored.
    if (!this.hasIndexedDb) return null;
    let value: unknown;
    try {
      value = await this.records.readOrFail(RECORD);
    } catch (error) {
      throw new Error(`the stored vectors could not be read (${errorMessage(error)}); they are kept, and embedding waits until they can be read (restart Obsidian to try again)`);
    }
    if (value instanceof Uint8Array) return value;
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
    return null;
  }

  /** Rejects when the write fails, so the embedding job reports the save as not done. */
  async save(bytes: Uint8Array): Promise<void> {
    await this.records.write(RECORD, bytes);
  }

  async clear(): Promise<void> {
    await this.records.clear();
  }

  close(): void {
    this.records.close();
  }
}
