// The QueryLogFile port in memory: two strings, as the CLI's two files and the plugin's two data-folder files.
import type { QueryLogFile } from "../../../src/index/query-log/query-log-file";

export class MemoryQueryLogFile implements QueryLogFile {
  current = "";
  previous = "";
  rotations = 0;
  failAppends = false;

  async append(text: string): Promise<void> {
    if (this.failAppends) throw new Error("read-only file system");
    this.current += text;
  }

  async size(): Promise<number> {
    return new TextEncoder().encode(this.current).length;
  }

  async rotate(): Promise<void> {
    this.previous = this.current;
    this.current = "";
    this.rotations++;
  }

  async read(): Promise<{ previous: string; current: string }> {
    return { previous: this.previous, current: this.current };
  }

  async clear(): Promise<void> {
    this.current = "";
    this.previous = "";
  }
}
