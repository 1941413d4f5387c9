// The VectorCache port in memory: what the CLI's cache folder and the plugin's IndexedDB do.
import type { VectorCache } from "../../../src/index/embeddings/vector-cache";
import { ROOT_PART } from "../../../src/index/embeddings/vector-parts";

export class MemoryVectorCache implements VectorCache {
  readonly parts = new Map<string, Uint8Array>();
  /** Saves done: root parts written. */
  saves = 0;
  /** Bytes written so far, over every part. */
  bytesWritten = 0;
  /** Parts written so far, by name, in order. */
  readonly written: string[] = [];
  failSaves = false;
  /** Writes that succeed before `failSaves`-like failure starts (null: no limit). */
  writesLeft: number | null = null;
  /** The wall clock each write is dated by, as the CLI's files and the plugin's records are; null: none kept. */
  now: (() => number) | null = null;
  private readonly dates = new Map<string, number>();

  async read(name: string): Promise<Uint8Array | null> {
    return this.parts.get(name)?.slice() ?? null;
  }

  async write(name: string, bytes: Uint8Array): Promise<void> {
    if (this.failSaves || this.writesLeft === 0) throw new Error("disk full");
    if (this.writesLeft !== null) this.writesLeft--;
    this.parts.set(name, bytes.slice());
    if (this.now) this.dates.set(name, this.now());
    this.written.push(name);
    this.bytesWritten += bytes.length;
    if (name === ROOT_PART) this.saves++;
  }

  async names(): Promise<string[]> {
    return [...this.parts.keys()];
  }

  async writtenAt(name: string): Promise<number | null> {
    return this.parts.has(name) ? (this.dates.get(name) ?? null) : null;
  }

  async remove(names: string[]): Promise<void> {
    for (const name of names) {
      this.parts.delete(name);
      this.dates.delete(name);
    }
  }

  async clear(): Promise<void> {
    this.parts.clear();
    this.dates.clear();
  }
}

/** The root's list of parts, as JSON (after magic, digest and its length). */
export function rootOf(cache: MemoryVectorCache): { buckets: number; parts: { name: string; bucket: number }[] } {
  const bytes = cache.parts.get(ROOT_PART)!;
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(36, true);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(40, 40 + length))) as { buckets: number; parts: { name: string; bucket: number }[] };
}

/**
 * The cache as versions before save tokens left it: a VRV2 root naming each part after a count of
 * saves (`vectors-<save>-<bucket>`), the parts' bytes as they are (their format did not change).
 */
export async function nameByCount(cache: MemoryVectorCache, save: number): Promise<void> {
  const root = rootOf(cache);
  const parts = root.parts.map((part) => {
    const name = `vectors-${save}-${part.bucket}`;
    cache.parts.set(name, cache.parts.get(part.name)!);
    cache.parts.delete(part.name);
    return { ...part, name };
  });
  await rewriteRoot(cache, () => ({ ...root, schema: "vault-research.vectors.v2", saves: save, parts }), "VRV2");
}

/**
 * The root with its JSON changed, as an older version or a hand edit would leave it, signed again
 * (magic, SHA-256 of the rest, the JSON's length, the JSON padded to 4) so only the JSON differs.
 */
export async function rewriteRoot(cache: MemoryVectorCache, change: (root: Record<string, unknown>) => unknown, magic = "VRV3"): Promise<void> {
  const json = new TextEncoder().encode(JSON.stringify(change(rootOf(cache))));
  const header = new Uint8Array(Math.ceil(json.length / 4) * 4).fill(0x20);
  header.set(json);
  const bytes = new Uint8Array(40 + header.length);
  bytes.set(new TextEncoder().encode(magic));
  new DataView(bytes.buffer).setUint32(36, header.length, true);
  bytes.set(header, 40);
  bytes.set(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes.subarray(36))), 4);
  cache.parts.set(ROOT_PART, bytes);
}
