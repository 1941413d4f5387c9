// VectorCache over IndexedDB: the dial's vectors, one blob per vault (index/embeddings/vector-file.ts
// makes and checks it), in a database of their own beside the index cache's, so clearing or
// rebuilding the index never throws the vectors away (embedding them again takes hours), and the
// index's tidy-up of parts it does not know never sees them. Never the vault (DESIGN invariant 8).
import type { VectorCache } from "../index/embeddings/vector-cache";
import { IndexedDbCache } from "./indexeddb-cache";

const RECORD = "vectors";

export class IndexedDbVectorCache implements VectorCache {
  private readonly records: IndexedDbCache;

  /** @param factory IndexedDB itself; tests pass a stand-in. */
  constructor(vaultId: string, factory?: IDBFactory) {
    this.records = new IndexedDbCache(vaultId, factory ?? (typeof indexedDB === "undefined" ? undefined : indexedDB), {
      database: "vault-research-vectors",
      what: "the stored vectors",
      fallback: "notes are embedded again as needed",
    });
  }

  /** The stored blob, or null (none, unreadable, or not bytes: vector-file.ts says what it finds). */
  async load(): Promise<Uint8Array | null> {
    const value = await this.records.read(RECORD);
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
