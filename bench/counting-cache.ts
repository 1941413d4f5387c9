// The IndexCache the CLI uses (a folder of v8 files), counting the parts a save writes and their bytes.
import { statSync } from "node:fs";
import path from "node:path";
import type { FileIndexCache } from "../src/cli/file-index-cache";
import type { IndexCache } from "../src/ports";

export class CountingCache implements IndexCache {
  written: string[] = [];
  constructor(readonly inner: FileIndexCache) {}
  read = (name: string) => this.inner.read(name);
  names = () => this.inner.names();
  remove = (names: string[]) => this.inner.remove(names);
  clear = () => this.inner.clear();

  async write(name: string, value: unknown): Promise<void> {
    await this.inner.write(name, value);
    this.written.push(name);
  }

  /** Bytes of the parts written so far (as they are now on disk). */
  bytesWritten(): number {
    return this.written.reduce((n, name) => n + statSync(path.join(this.inner.folder, `${name}.v8`)).size, 0);
  }
}
