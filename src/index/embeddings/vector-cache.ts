// Where the vectors live between sessions: the CLI's cache folder, the plugin's IndexedDB — never
// the vault (DESIGN invariant 8). Bytes, not text: int8 vectors in base64 would be a third larger.
export interface VectorCache {
  load(): Promise<Uint8Array | null>;
  save(bytes: Uint8Array): Promise<void>;
  clear(): Promise<void>;
}
