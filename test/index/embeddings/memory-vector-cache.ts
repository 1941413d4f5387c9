// The VectorCache port in memory: what the CLI's cache file and the plugin's IndexedDB do.
import type { VectorCache } from "../../../src/index/embeddings/vector-cache";

export class MemoryVectorCache implements VectorCache {
  bytes: Uint8Array | null = null;
  saves = 0;
  failSaves = false;

  async load(): Promise<Uint8Array | null> {
    return this.bytes;
  }

  async save(bytes: Uint8Array): Promise<void> {
    if (this.failSaves) throw new Error("disk full");
    this.saves++;
    this.bytes = bytes.slice();
  }

  async clear(): Promise<void> {
    this.bytes = null;
  }
}
