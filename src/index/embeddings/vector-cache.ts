// Where the vectors live between sessions: the CLI's cache folder, the plugin's IndexedDB — never
// the vault (DESIGN invariant 8). Named parts of bytes (vector-parts.ts says which), so a save
// writes the few parts that changed, not every note's vectors: int8 vectors in base64 would be a
// third larger, and one blob of a large vault's vectors was hundreds of MB written at every save.
export interface VectorCache {
  /** The part's bytes; null when there is none. Rejects when it cannot be read: never read as none. */
  read(name: string): Promise<Uint8Array | null>;
  /** Writes the part whole, or not at all, and rejects. */
  write(name: string, bytes: Uint8Array): Promise<void>;
  /** The parts stored. */
  names(): Promise<string[]>;
  /** When the part was last written (wall-clock milliseconds), or null when that is not known; left out
   * by a store that keeps no such time. A save takes away a part no root names that another process
   * wrote only once it was written ten minutes ago (or found unlisted that long ago): that process's
   * save writes its parts before the root naming them. */
  writtenAt?(name: string): Promise<number | null>;
  remove(names: string[]): Promise<void>;
  clear(): Promise<void>;
}
