// The vectors in parts (format VRV2), through the VectorCache port: a root part, "vectors", that
// names the model, the dimensions, the model's fingerprint and the parts; and per bucket of notes
// (a hash of the path, spread as the vault language spreads its note vectors: bucketOf, bucketsFor)
// a part with their places and int8 rows. A save writes only the parts whose notes changed since
// the last save or load, then the root, then takes away the parts no root names. A save killed
// midway leaves the old root naming old parts, all still there; part names are never reused
// (`vectors-<save>-<bucket>`), so no write lands on a part the root in place names.
//
// Every part and the root start with a SHA-256 of what follows. A row's norm, which is all VRV1
// checked, stays the same when a component's sign flips or two components swap places: such a
// vector loaded without a word and ranked notes. A part whose digest does not match, that is
// missing or not the shape the root says is left out and its notes are embedded again (a
// `notes_damaged` reset says how many); the other parts are kept. SHA-256 is the platform's (Web
// Crypto, in Node, Electron and the mobile apps alike); the CLI's index parts hash with node:crypto
// (cli/file-index-cache.ts), which this layer cannot import and the plugin does not have.
//
// Root:  "VRV2" | SHA-256 (32 bytes) | uint32 H | H bytes of JSON (Manifest), padded with spaces to 4
// Part:  "VRP2" | SHA-256 (32 bytes) | uint32 H | H bytes of JSON ({ notes }), padded | int8 rows
// Rows are each note's in header order: its own vector, then one per unit; 1 / |row| is worked
// out from them on load, never stored. A root in the older one-blob format (VRV1, vector-file.ts)
// is read as before, and the next save writes parts and a VRV2 root over it; a version that only
// knows VRV1 reads VRV2 as a newer format and embeds again rather than misread it.
import * as z from "zod";
import { bucketOf, bucketsFor } from "../vault-language/note-vector-file";
import type { VectorCache } from "./vector-cache";
import { noteEntryOf, noteEntrySchema, noteFromEntry, readVectors, type VectorLoad } from "./vector-file";
import { VectorStore, type NoteVectors } from "./vector-store";
import type { VectorReset } from "./vector-reset";

/** The root part's name: where VRV1 kept its one blob too. */
export const ROOT_PART = "vectors";
const ROOT_MAGIC = "VRV2";
const PART_MAGIC = "VRP2";
const SCHEMA = "vault-research.vectors.v2";
/** A bucket's part, named after the save that wrote it. */
const PART_NAME = /^vectors-([1-9][0-9]*)-(0|[1-9][0-9]*)$/;
const DIGEST_BYTES = 32;
/** Magic and digest: the digest covers every byte after them. */
const HEAD_BYTES = 4 + DIGEST_BYTES;

const count = z.number().int().nonnegative();
const manifestSchema = z.object({
  schema: z.literal(SCHEMA),
  model: z.string(),
  dimensions: count,
  fingerprint: z.array(z.number()).nullable(),
  saves: count,
  buckets: z.number().int().positive(),
  parts: z.array(z.object({ name: z.string(), bucket: count, notes: z.number().int().positive() })),
});
type Manifest = z.infer<typeof manifestSchema>;
type PartEntry = Manifest["parts"][number];
const partSchema = z.object({ notes: z.array(noteEntrySchema) });

/** A part as the cache holds it now: its name and the very note objects written to it. */
interface SavedPart {
  name: string;
  notes: Set<NoteVectors>;
}

/** What the cache holds for a store, as its last load or save left it: what the next save compares with. */
interface Layout {
  saves: number;
  buckets: number;
  parts: Map<number, SavedPart>;
}

/** Per store loaded or saved in this session. A store that has none (new, or loaded from VRV1) writes every part at its first save. */
const layouts = new WeakMap<VectorStore, Layout>();

/**
 * The stored vectors for `model`, or an empty store and why. Rejects when the cache cannot be read
 * (a part included): read as none, the next save would put a few notes over hours of embedding.
 */
export async function loadStoredVectors(cache: VectorCache, model: string): Promise<VectorLoad> {
  const root = await cache.read(ROOT_PART);
  if (root === null || !hasMagic(root, ROOT_MAGIC)) return readVectors(root, model);
  const read = await readManifest(root);
  if (!read.ok) return { store: new VectorStore(model), reset: read.reset };
  const manifest = read.manifest;
  if (manifest.model !== model) {
    const notes = manifest.parts.reduce((sum, p) => sum + p.notes, 0);
    return { store: new VectorStore(model), reset: notes > 0 ? { kind: "model_changed", from: manifest.model, to: model, notes } : null };
  }
  const print = manifest.fingerprint !== null && manifest.fingerprint.length === manifest.dimensions ? Float32Array.from(manifest.fingerprint) : null;
  const store = new VectorStore(model, manifest.dimensions || null, print);
  const layout: Layout = { saves: manifest.saves, buckets: manifest.buckets, parts: new Map() };
  let damaged = 0;
  for (const entry of manifest.parts) {
    const notes = await notesOfPart(await cache.read(entry.name), entry, manifest);
    if (!notes) {
      damaged += entry.notes;
      continue;
    }
    for (const note of notes) store.restore(note);
    layout.parts.set(entry.bucket, { name: entry.name, notes: new Set(notes) });
  }
  layouts.set(store, layout);
  return { store, reset: damaged > 0 ? { kind: "notes_damaged", notes: damaged } : null };
}

/**
 * Saves the store: the parts whose notes changed since its last load or save, then the root. Rejects
 * when a write fails; what this save wrote is taken away again, and the next save tries once more.
 * `notesComing`: how many notes the store will hold once the run saving it is done (the vault's), so
 * the parts are laid out for them from a first embedding's first save, not laid out anew (every part
 * rewritten) once it has grown past what its first layout holds.
 */
export async function saveStoredVectors(cache: VectorCache, store: VectorStore, notesComing = 0): Promise<void> {
  const before = layouts.get(store);
  const saves = (before?.saves ?? highestSave(await cache.names())) + 1;
  const buckets = bucketsFor(Math.max(store.size, notesComing), before?.buckets ?? null);
  const kept = before?.buckets === buckets ? before.parts : new Map<number, SavedPart>();
  const dimensions = store.dimensions ?? 0;
  const parts = new Map<number, SavedPart>();
  const written: string[] = [];
  try {
    for (const [bucket, notes] of notesByBucket(store, buckets)) {
      const old = kept.get(bucket);
      if (old && sameNotes(old.notes, notes)) {
        parts.set(bucket, old);
        continue;
      }
      const name = `vectors-${saves}-${bucket}`;
      await cache.write(name, await encodePart(notes, dimensions));
      written.push(name);
      parts.set(bucket, { name, notes: new Set(notes) });
    }
    await cache.write(ROOT_PART, await encodeRoot(store, saves, buckets, parts));
  } catch (error) {
    // No root names them, and they take room (a full disk's, a quota's): away now rather than at the next save.
    await cache.remove(written).catch(() => undefined);
    throw error;
  }
  layouts.set(store, { saves, buckets, parts });
  await removeUnnamedParts(cache, parts);
}

/** The parts no root names (replaced now, or left by a save killed midway); a failure waits for the next save. */
async function removeUnnamedParts(cache: VectorCache, parts: Map<number, SavedPart>): Promise<void> {
  const named = new Set(Array.from(parts.values(), (p) => p.name));
  try {
    const stale = (await cache.names()).filter((name) => PART_NAME.test(name) && !named.has(name));
    if (stale.length > 0) await cache.remove(stale);
  } catch {
    // The save itself is done; they are tried again next time.
  }
}

/** The highest save a part's name holds: a store with no layout must not write over any of them. */
function highestSave(names: string[]): number {
  let highest = 0;
  for (const name of names) {
    const match = PART_NAME.exec(name);
    if (match) highest = Math.max(highest, Number(match[1]));
  }
  return highest;
}

function notesByBucket(store: VectorStore, buckets: number): Map<number, NoteVectors[]> {
  const out = new Map<number, NoteVectors[]>();
  for (const note of store.entries()) {
    const bucket = bucketOf(note.path, buckets);
    const list = out.get(bucket);
    if (list) list.push(note);
    else out.set(bucket, [note]);
  }
  return out;
}

/** The same note objects: `put` and `confirm` make a new one for each note they change. */
function sameNotes(saved: Set<NoteVectors>, notes: NoteVectors[]): boolean {
  return saved.size === notes.length && notes.every((n) => saved.has(n));
}

// ── encoding ───────────────────────────────────────────────────────────────────────────────

async function encodeRoot(store: VectorStore, saves: number, buckets: number, parts: Map<number, SavedPart>): Promise<Uint8Array> {
  const manifest: Manifest = {
    schema: SCHEMA,
    model: store.model ?? "",
    dimensions: store.dimensions ?? 0,
    // Six decimals: the root stays small, and a cosine against it moves far less than SAME_MODEL_COSINE's margin.
    fingerprint: store.fingerprint ? Array.from(store.fingerprint, (x) => Math.round(x * 1e6) / 1e6) : null,
    saves,
    buckets,
    parts: Array.from(parts, ([bucket, part]) => ({ name: part.name, bucket, notes: part.notes.size })).sort((a, b) => a.bucket - b.bucket),
  };
  return signed(ROOT_MAGIC, paddedJson(manifest), []);
}

async function encodePart(notes: NoteVectors[], dimensions: number): Promise<Uint8Array> {
  const rows = notes.map((n) => new Uint8Array(n.values.buffer, n.values.byteOffset, n.values.byteLength));
  if (notes.some((n) => n.values.length !== (n.units.length + 1) * dimensions)) throw new Error("A note's vectors are not of the store's dimensions.");
  return signed(PART_MAGIC, paddedJson({ notes: notes.map(noteEntryOf) }), rows);
}

/** Magic, the SHA-256 of the rest, the header's length, the header, then `rows` one after another. */
async function signed(magic: string, header: Uint8Array, rows: Uint8Array[]): Promise<Uint8Array> {
  const bytes = new Uint8Array(HEAD_BYTES + 4 + header.length + rows.reduce((sum, r) => sum + r.length, 0));
  bytes.set(new TextEncoder().encode(magic), 0);
  new DataView(bytes.buffer).setUint32(HEAD_BYTES, header.length, true);
  bytes.set(header, HEAD_BYTES + 4);
  let at = HEAD_BYTES + 4 + header.length;
  for (const row of rows) {
    bytes.set(row, at);
    at += row.length;
  }
  bytes.set(await sha256(bytes.subarray(HEAD_BYTES)), 4);
  return bytes;
}

/** JSON padded with spaces to 4 bytes, so the rows after it start aligned. */
function paddedJson(value: unknown): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(value));
  const padded = new Uint8Array(Math.ceil(json.length / 4) * 4).fill(0x20);
  padded.set(json);
  return padded;
}

// ── decoding ───────────────────────────────────────────────────────────────────────────────

type ManifestRead = { ok: true; manifest: Manifest } | { ok: false; reset: VectorReset };

async function readManifest(bytes: Uint8Array): Promise<ManifestRead> {
  const body = await checkedBody(bytes, ROOT_MAGIC);
  if (typeof body === "string") return corrupt(`the list of parts ${body}`);
  const header = headerOf(body);
  if (header === null) return corrupt("the list of parts is not JSON");
  const checked = manifestSchema.safeParse(header.json);
  if (!checked.success) return corrupt(`the list of parts is not in the expected shape (${checked.error.issues[0]?.message ?? "unknown"})`);
  const manifest = checked.data;
  const buckets = new Set<number>();
  for (const part of manifest.parts) {
    const match = PART_NAME.exec(part.name);
    const possible = match !== null && Number(match[1]) <= manifest.saves && Number(match[2]) === part.bucket && part.bucket < manifest.buckets;
    if (!possible || buckets.has(part.bucket) || manifest.dimensions === 0) return corrupt(`part ${part.name} is not possible in the list of parts`);
    buckets.add(part.bucket);
  }
  return { ok: true, manifest };
}

/** The part's notes, or null when it is missing, damaged or not what the root says it holds. */
async function notesOfPart(bytes: Uint8Array | null, entry: PartEntry, manifest: Manifest): Promise<NoteVectors[] | null> {
  if (bytes === null) return null;
  const body = await checkedBody(bytes, PART_MAGIC);
  if (typeof body === "string") return null;
  const header = headerOf(body);
  const checked = header && partSchema.safeParse(header.json);
  if (!header || !checked?.success || checked.data.notes.length !== entry.notes) return null;
  const d = manifest.dimensions;
  const rows = checked.data.notes.reduce((sum, n) => sum + n.units.length + 1, 0);
  if (body.length !== header.end + rows * d) return null;
  const notes: NoteVectors[] = [];
  const paths = new Set<string>();
  let at = header.end;
  for (const n of checked.data.notes) {
    if (paths.has(n.path) || bucketOf(n.path, manifest.buckets) !== entry.bucket) return null;
    paths.add(n.path);
    const length = (n.units.length + 1) * d;
    notes.push(noteFromEntry(n, new Int8Array(body.slice(at, at + length).buffer), d));
    at += length;
  }
  return notes;
}

/** The bytes after magic and digest once the digest says they are as written; else what is wrong, in words. */
async function checkedBody(bytes: Uint8Array, magic: string): Promise<Uint8Array | string> {
  if (bytes.length < HEAD_BYTES + 4 || !hasMagic(bytes, magic)) return "is cut short or not of this format";
  const body = bytes.subarray(HEAD_BYTES);
  const digest = await sha256(body);
  for (let i = 0; i < DIGEST_BYTES; i++) if (digest[i] !== bytes[4 + i]) return "does not match its checksum";
  return body;
}

/** The JSON header at the start of a body and where the rows after it begin; null when it is not JSON. */
function headerOf(body: Uint8Array): { json: unknown; end: number } | null {
  const length = new DataView(body.buffer, body.byteOffset, body.byteLength).getUint32(0, true);
  if (4 + length > body.length) return null;
  try {
    return { json: JSON.parse(new TextDecoder().decode(body.subarray(4, 4 + length))), end: 4 + length };
  } catch {
    return null;
  }
}

function hasMagic(bytes: Uint8Array, magic: string): boolean {
  return bytes.length >= 4 && new TextDecoder().decode(bytes.subarray(0, 4)) === magic;
}

async function sha256(bytes: Uint8Array): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
}

function corrupt(detail: string): ManifestRead {
  return { ok: false, reset: { kind: "corrupt", detail } };
}
