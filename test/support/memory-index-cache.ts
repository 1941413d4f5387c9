// The IndexCache port in memory: parts are copied in and out (as IndexedDB copies them), writes are
// counted by name, and a read or a write can be made to fail on demand.
import type { IndexCache } from "../../src/ports";
import type { Manifest } from "../../src/index/cache-file";

export class MemoryIndexCache implements IndexCache {
  readonly parts = new Map<string, unknown>();
  /** Names written, in order, since the test last emptied it. */
  readonly written: string[] = [];
  failRead: Error | null = null;
  /** Writes of parts this returns true for fail (after the ones before them went through). */
  failWrite: ((name: string) => boolean) | null = null;

  async read(name: string): Promise<unknown> {
    if (this.failRead) throw this.failRead;
    return this.parts.has(name) ? structuredClone(this.parts.get(name)) : null;
  }

  async write(name: string, value: unknown): Promise<void> {
    if (this.failWrite?.(name)) throw new Error(`disk full while writing ${name}`);
    this.parts.set(name, structuredClone(value));
    this.written.push(name);
  }

  async names(): Promise<string[]> {
    return [...this.parts.keys()];
  }

  async remove(names: string[]): Promise<void> {
    for (const name of names) this.parts.delete(name);
  }

  async clear(): Promise<void> {
    this.parts.clear();
  }

  /** The manifest as saved (a test's view into it). */
  manifest(): Manifest {
    return this.parts.get("manifest") as Manifest;
  }
}
