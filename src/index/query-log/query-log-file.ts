// Where the query log's lines go: the plugin's data folder, the CLI's cache folder — never the
// vault, never the network (DESIGN invariant 8). Two files at most: the current one and the
// previous one, so the log's size is bounded by twice the rotation size.
export interface QueryLogFile {
  /** Appends text to the current file (creating it). */
  append(text: string): Promise<void>;
  /** Bytes in the current file (0 when there is none). */
  size(): Promise<number>;
  /** The current file becomes the previous one (replacing it); the next append starts a new current file. */
  rotate(): Promise<void>;
  /** The previous file's text and the current one's ("" for a missing file). */
  read(): Promise<{ previous: string; current: string }>;
  /** Both files gone. */
  clear(): Promise<void>;
}
