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
  remove(names: string[]): Promise<void>;
  clear(): Promise<void>;
}
