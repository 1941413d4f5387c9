// VectorCache over IndexedDB: the dial's vectors, one record a part (index/embeddings/vector-parts.ts
// makes and checks them; the root part keeps the key the one blob of earlier versions had), in a
// database of their own beside the index cache's, so clearing or rebuilding the index never throws
// the vectors away (embedding them again takes hours), and the index's tidy-up of parts it does not
// know never sees them. Never the vault (DESIGN invariant 8). Each part's write time is kept beside it
// (`written-at-v2/<part>`, as the index's parts): a save takes away a part a session killed mid-save
// left once it was written ten minutes ago, not only after two saves of one session that far apart.
import type { VectorCache } from "../index/embeddings/vector-cache";
import { errorMessage } from "../text/error-message";
import { IndexedDbCache } from "./indexeddb-cache";

export class IndexedDbVectorCache implements VectorCache {
  private readonly records: IndexedDbCache;
  private readonly hasIndexedDb: boolean;

  /**
   * @param factory IndexedDB itself; tests pass a stand-in.
   * @param now the wall clock a part's write time is read from (the one the vectors' saves are dated by).
   */
  constructor(vaultId: string, factory?: IDBFactory, now: () => number = Date.now) {
    const idb = factory ?? (typeof indexedDB === "undefined" ? undefined : indexedDB);
    this.hasIndexedDb = idb !== undefined;
    this.records = new IndexedDbCache(
      vaultId,
      idb,
      {
        database: "vault-research-vectors",
        what: "the stored vectors",
        fallback: "notes are embedded again as needed",
        dated: true,
      },
      now,
    );
  }

  /**
   * The part's bytes, or null (none, or not bytes: vector-parts.ts says what it finds). A read
   * that fails rejects: read as "nothing stored", the next save would put a few new notes' vectors
   * over hours of embedding.
   */
  async read(name: string): Promise<Uint8Array | null> {
    // Without IndexedDB on this device nothing was ever stored.
    if (!this.hasIndexedDb) return null;
    let value: unknown;
    try {
      value = await this.records.readOrFail(name);
    } catch (error) {
      throw new Error(`the stored vectors could not be read (${errorMessage(error)}); they are kept, and embedding waits until they can be read (restart Obsidian to try again)`);
    }
    if (value instanceof Uint8Array) return value;
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
    return null;
  }

  /** Rejects when the write fails, so the embedding job reports the save as not done. */
  async write(name: string, bytes: Uint8Array): Promise<void> {
    await this.records.write(name, bytes);
  }

  /** Rejects when the listing fails: a save must not take "none listed" for "none there". */
  async names(): Promise<string[]> {
    if (!this.hasIndexedDb) return [];
    return this.records.namesOrFail();
  }

  /** When the part was written, or null when that is not known (a part of a version that kept no time). */
  async writtenAt(name: string): Promise<number | null> {
    if (!this.hasIndexedDb) return null;
    return this.records.writtenAt(name);
  }

  async remove(names: string[]): Promise<void> {
    await this.records.remove(names);
  }

  async clear(): Promise<void> {
    await this.records.clear();
  }

  /** For the plugin's unload: see IndexedDbCache.close. */
  close(): void {
    this.records.close();
  }
}
