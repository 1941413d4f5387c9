// The vector lane's figures: brute-force cosine over int8 vectors with a top-k heap, at 10k, 50k
// and 100k sections of a 768-dimension model (nomic-embed-text's size), and what a section costs
// on disk and in memory. Vectors are seeded random unit vectors: the scan's cost does not depend
// on what they say, and no real embedding model runs here. Prints one JSON object.
//
// node --expose-gc dist/bench-embeddings.cjs [--dimensions 768] [--queries 60] [--sizes 10000,50000,100000]
import type { EmbeddingUnit } from "../src/index/embeddings/embedding-units";
import { bytesPerVector, unitLength } from "../src/index/embeddings/quantize";
import type { VectorCache } from "../src/index/embeddings/vector-cache";
import { loadStoredVectors, saveStoredVectors } from "../src/index/embeddings/vector-parts";
import { VectorStore } from "../src/index/embeddings/vector-store";
import { vectorLaneChecks } from "./bench-tools";

const gc = (globalThis as { gc?: () => void }).gc;
/** Title, outline and three sections: a typical note's units. */
const UNITS_PER_NOTE = 5;
const TOP_K = 50;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : process.argv[i + 1];
}

function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => ((state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}

function randomUnit(dimensions: number, next: () => number): Float32Array {
  const v = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) v[i] = Math.sqrt(-2 * Math.log(next() || 1e-9)) * Math.cos(2 * Math.PI * next());
  return unitLength(v);
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]);
}

function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** The JS heap and the typed arrays' backing stores (int8 rows live outside the heap). */
function memoryUsed(): number {
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

function buildStore(sections: number, dimensions: number, next: () => number): VectorStore {
  const store = new VectorStore("bench:random");
  store.adoptDimensions(dimensions);
  const notes = Math.ceil(sections / UNITS_PER_NOTE);
  for (let n = 0; n < notes; n++) {
    const units = unitsOf(n);
    store.put({ path: notePath(n), mtime: 1_700_000_000_000 + n, size: 2000 + n }, units, units.map(() => randomUnit(dimensions, next)));
  }
  return store;
}

function notePath(n: number): string {
  return `Folder ${n % 40}/Note number ${n}.md`;
}

function unitsOf(n: number): EmbeddingUnit[] {
  return Array.from({ length: UNITS_PER_NOTE }, (_, u) =>
    u === 0
      ? { kind: "title", headingPath: [], line: 1, start: 0, end: 0, text: `Note number ${n}` }
      : u === 1
        ? { kind: "headings", headingPath: [], line: 1, start: 0, end: 0, text: `Heading ${u}` }
        : { kind: "section", headingPath: [`Heading ${u}`], line: u * 12, start: u * 700, end: u * 700 + 650, text: `Section ${u} of note ${n}` },
  );
}

function timeQueries(store: VectorStore, queries: Float32Array[]): { sections: number[]; notes: number[] } {
  const sections: number[] = [];
  const notes: number[] = [];
  // Warm the JIT first, as a session that has searched before would be.
  for (const q of queries.slice(0, 5)) store.nearestSections(q, TOP_K);
  for (const q of queries) {
    let t = performance.now();
    store.nearestSections(q, TOP_K);
    sections.push(performance.now() - t);
    t = performance.now();
    store.nearestNotes(q, TOP_K);
    notes.push(performance.now() - t);
  }
  return { sections, notes };
}

/** The VectorCache port in memory, counting what a save writes: the parts format's cost without a disk's. */
class CountingVectorCache implements VectorCache {
  readonly parts = new Map<string, Uint8Array>();
  bytesWritten = 0;
  async read(name: string): Promise<Uint8Array | null> {
    return this.parts.get(name) ?? null;
  }
  async write(name: string, bytes: Uint8Array): Promise<void> {
    this.parts.set(name, bytes);
    this.bytesWritten += bytes.length;
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
  storedBytes(): number {
    let total = 0;
    for (const bytes of this.parts.values()) total += bytes.length;
    return total;
  }
}

async function measure(sections: number, dimensions: number, queryCount: number): Promise<Record<string, unknown>> {
  const next = seeded(sections);
  const before = memoryUsed();
  const store = buildStore(sections, dimensions, next);
  const memoryBytes = memoryUsed() - before;
  const queries = Array.from({ length: queryCount }, () => randomUnit(dimensions, next));
  const times = timeQueries(store, queries);
  const cache = new CountingVectorCache();
  let t = performance.now();
  await saveStoredVectors(cache, store);
  const saveMs = performance.now() - t;
  const fileBytes = cache.storedBytes();
  // The save after one note changed: what every edit costs once the vault is embedded.
  const units = unitsOf(0);
  store.put({ path: notePath(0), mtime: 1_800_000_000_000, size: 2001 }, units, units.map(() => randomUnit(dimensions, next)));
  const written = cache.bytesWritten;
  t = performance.now();
  await saveStoredVectors(cache, store);
  const oneNoteSaveMs = performance.now() - t;
  const oneNoteSaveBytes = cache.bytesWritten - written;
  t = performance.now();
  const loaded = await loadStoredVectors(cache, "bench:random");
  const loadMs = performance.now() - t;
  if (loaded.store.unitCount() !== store.unitCount() || loaded.reset !== null) throw new Error("the stored vectors did not round-trip");
  const both = times.sections.map((s, i) => s + times.notes[i]);
  return {
    sections: store.unitCount(),
    notes: store.size,
    section_lane_ms: { p50: percentile(times.sections, 50), p95: percentile(times.sections, 95) },
    note_lane_ms: { p50: percentile(times.notes, 50), p95: percentile(times.notes, 95) },
    level3_vector_lanes_ms: { p50: percentile(both, 50), p95: percentile(both, 95) },
    file_bytes: fileBytes,
    file_bytes_per_section: round(fileBytes / store.unitCount(), 1),
    memory_bytes_per_section: round(memoryBytes / store.unitCount(), 1),
    save_ms: round(saveMs),
    one_note_save_bytes: oneNoteSaveBytes,
    one_note_save_ms: round(oneNoteSaveMs),
    load_ms: round(loadMs),
  };
}

async function main(): Promise<void> {
  const dimensions = Number(arg("dimensions") ?? 768);
  const queries = Number(arg("queries") ?? 60);
  const sizes = (arg("sizes") ?? "10000,50000,100000").split(",").map(Number);
  const runs: Record<string, unknown>[] = [];
  for (const n of sizes) runs.push(await measure(n, dimensions, queries));
  const figures = {
    bench: "embeddings",
    dimensions,
    units_per_note: UNITS_PER_NOTE,
    top_k: TOP_K,
    vector_bytes_per_section: bytesPerVector(dimensions),
    note_vector_bytes_per_note: bytesPerVector(dimensions),
    gc_exposed: gc !== undefined,
    runs,
    checks: vectorLaneChecks(runs as { sections: number; level3_vector_lanes_ms: { p95: number } }[]),
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
