// The vectors in parts (format VRV3), through the VectorCache port: a root part, "vectors", that
// names the model, the dimensions, the model's fingerprint and the parts; and per bucket of notes
// (a hash of the path, spread as the vault language spreads its note vectors: bucketOf, bucketsFor)
// a part with their places and int8 rows. A save writes only the parts whose notes changed since
// the last save or load, then the root, then takes away the parts no root names once no process can
// still need them (below). A save killed midway leaves the old root naming old parts, all still there.
//
// Another process may save into the same cache (`vault-research embed` beside the MCP server, or the
// plugin reloaded while its last save ran). Each save names its parts `vectors-<token>-<bucket>` with a
// token of its own (newSaveToken, as the index's segments), so a name is never given other contents:
// named after a count of saves, which both processes counted, one's part was written over with the
// other's, and a root naming it loaded the other's rows as its own, another model's included (a part
// records no model). A save writes again a part it would keep that the other's save took away, and
// a load that finds a part gone reads the root again, since another save has most likely just
// replaced it; still gone, its notes are `notes_missing`, not damaged. VRV2 roots named parts by a
// count (`vectors-<save>-<bucket>`): read as before, and the next save writes every part anew.
//
// Which parts no root names a save takes away, and when, is the index's rule (index/unlisted-parts.ts):
// the other process's save writes its parts before the root naming them, so a part this process did
// not write goes only once written (VectorCache.writtenAt) or found unlisted ten minutes ago, and a
// part a root this process wrote or loaded named, or the root its save replaced (read just before,
// another process's too), goes ten minutes after a root of its own stopped naming it. Taking away
// every part its own root did not name, a save removed the parts of another's save under way, whose
// root then named parts that were gone: every note embedded again. Every part the root
// will name (kept, or written by this save) is looked for once more just before the root, and written
// again when another's save took it away.
//
// Every part and the root start with a SHA-256 of what follows. A row's norm, which is all VRV1
// checked, stays the same when a component's sign flips or two components swap places: such a
// vector loaded without a word and ranked notes. A part whose digest does not match or that is
// not the shape the root says is left out and its notes are embedded again (a `notes_damaged`
// reset says how many); the other parts are kept. SHA-256 is the platform's (Web
// Crypto, in Node, Electron and the mobile apps alike); the CLI's index parts hash with node:crypto
// (cli/file-index-cache.ts), which this layer cannot import and the plugin does not have.
//
// Root:  "VRV3" | SHA-256 (32 bytes) | uint32 H | H bytes of JSON (Manifest), padded with spaces to 4
// Part:  "VRP2" | SHA-256 (32 bytes) | uint32 H | H bytes of JSON ({ notes }), padded | int8 rows
// Rows are each note's in header order: its own vector, then one per unit; 1 / |row| is worked
// out from them on load, never stored. A root in the older one-blob format (VRV1, vector-file.ts)
// is read as before, and the next save writes parts and a VRV3 root over it; a version that knows
// only VRV1 or VRV2 reads VRV3 as a newer format and embeds again rather than misread it.
import * as z from "zod";
import { systemClock } from "../../ports";
import { newSaveToken, SAVE_TOKEN_PATTERN } from "../cache-file";
import { loadFromLatestManifest, storedNames, UnlistedParts, type SaveClock } from "../unlisted-parts";
import { bucketOf, bucketsFor } from "../vault-language/note-vector-file";
import type { VectorCache } from "./vector-cache";
import { noteEntryOf, noteEntrySchema, noteFromEntry, readVectors, type VectorLoad } from "./vector-file";
import { VectorStore, type LeftOutReason, type NoteVectors } from "./vector-store";
import type { VectorReset } from "./vector-reset";

/** The root part's name: where VRV1 kept its one blob too. */
export const ROOT_PART = "vectors";
const ROOT_MAGIC = "VRV3";
/** The root while parts were named by a count of saves: read, never written. */
const COUNTED_ROOT_MAGIC = "VRV2";
const PART_MAGIC = "VRP2";
const SCHEMA = "vault-research.vectors.v3";
const COUNTED_SCHEMA = "vault-research.vectors.v2";
/** A bucket's part, named by its save's token (newSaveToken: 8 random bytes in hex). */
const PART_NAME = new RegExp(`^vectors-${SAVE_TOKEN_PATTERN}-(0|[1-9][0-9]*)$`);
/** A bucket's part as VRV2 roots named it, after a count of saves. */
const COUNTED_PART_NAME = /^vectors-([1-9][0-9]*)-(0|[1-9][0-9]*)$/;
const DIGEST_BYTES = 32;
/** Magic and digest: the digest covers every byte after them. */
const HEAD_BYTES = 4 + DIGEST_BYTES;

const count = z.number().int().nonnegative();
const manifestSchema = z.object({
  schema: z.enum([SCHEMA, COUNTED_SCHEMA]),
  model: z.string(),
  dimensions: count,
  fingerprint: z.array(z.number()).nullable(),
  /** VRV2's count of saves, which its part names held; VRV3 keeps none. */
  saves: count.optional(),
  buckets: z.number().int().positive(),
  parts: z.array(z.object({ name: z.string(), bucket: count, notes: z.number().int().positive() })),
  /**
   * The notes the embedding job tried as they were and left out (vector-store's `leaveOut`), so a
   * process that only loads the vectors tells them from notes waiting. Absent in roots from before
   * it was kept and when none was left out; checked on its own (`restoreLeftOut`), so a list not of
   * its shape costs the record, never the vectors. A reader that predates it drops it unread.
   */
  leftOut: z.unknown().optional(),
});
type Manifest = z.infer<typeof manifestSchema>;
type PartEntry = Manifest["parts"][number];
const partSchema = z.object({ notes: z.array(noteEntrySchema) });
/** Every reason the store knows, as a record so a reason added there must be added here. */
const LEFT_OUT_REASONS: Record<LeftOutReason, true> = { server_error: true, not_a_vector: true, unreadable: true };
/** A reason is any string: one a newer version added leaves only its note out of the record. */
const leftOutSchema = z.array(z.object({ path: z.string(), mtime: z.number(), size: count, reason: z.string() }));

/** A part as the cache holds it now: its name and the very note objects written to it. */
interface SavedPart {
  name: string;
  notes: Set<NoteVectors>;
}

/** What the cache holds for a store, as its last load or save left it: what the next save compares with. */
interface Layout {
  buckets: number;
  /** The parts a save may keep: none from a VRV2 root, whose names a process of an earlier version may still count to. */
  parts: Map<number, SavedPart>;
}

/** Per store loaded or saved in this session. A store that has none (new, or loaded from VRV1) writes every part at its first save. */
const layouts = new WeakMap<VectorStore, Layout>();
/** Per store: the parts its saves wrote and its roots named, by which its saves take unnamed parts away. */
const unlistedOf = new WeakMap<VectorStore, UnlistedParts>();

function unlistedPartsOf(store: VectorStore): UnlistedParts {
  let unlisted = unlistedOf.get(store);
  if (!unlisted) unlistedOf.set(store, (unlisted = new UnlistedParts()));
  return unlisted;
}

/** Whether `name` is a part of the stored vectors other than the root, as this version or VRV2 names them. */
export function isVectorPartName(name: string): boolean {
  return PART_NAME.test(name) || COUNTED_PART_NAME.test(name);
}

/**
 * The stored vectors for `model`, or an empty store and why. Rejects when the cache cannot be read
 * (a part included): read as none, the next save would put a few notes over hours of embedding.
 */
export function loadStoredVectors(cache: VectorCache, model: string): Promise<VectorLoad> {
  return loadFromLatestManifest(async () => {
    const root = await cache.read(ROOT_PART);
    if (root === null || !isPartsRoot(root)) return { outcome: readVectors(root, model), replaced: null };
    const read = await readManifest(root);
    if (!read.ok) return { outcome: { store: new VectorStore(model), reset: read.reset }, replaced: null };
    const load = await loadParts(cache, read.manifest, model);
    // A root that changed since it was read named parts of its own: those are read instead.
    return { outcome: load.vectors, replaced: load.missing === 0 ? null : () => rootChanged(cache, root) };
  });
}

/** The notes of every part the root names that is there and as written; `missing`: notes of parts that are not there. */
async function loadParts(cache: VectorCache, manifest: Manifest, model: string): Promise<{ vectors: VectorLoad; missing: number }> {
  // A process that read this root (another model's included) may be loading or keeping its parts.
  const named = manifest.parts.map((p) => p.name);
  if (manifest.model !== model) {
    const notes = manifest.parts.reduce((sum, p) => sum + p.notes, 0);
    const store = new VectorStore(model);
    unlistedPartsOf(store).loaded(named);
    return { vectors: { store, reset: notes > 0 ? { kind: "model_changed", from: manifest.model, to: model, notes } : null }, missing: 0 };
  }
  const print = manifest.fingerprint !== null && manifest.fingerprint.length === manifest.dimensions ? Float32Array.from(manifest.fingerprint) : null;
  const store = new VectorStore(model, manifest.dimensions || null, print);
  unlistedPartsOf(store).loaded(named);
  const layout: Layout = { buckets: manifest.buckets, parts: new Map() };
  let damaged = 0;
  let missing = 0;
  for (const entry of manifest.parts) {
    const bytes = await cache.read(entry.name);
    const notes = bytes && (await notesOfPart(bytes, entry, manifest));
    if (!notes) {
      if (bytes === null) missing += entry.notes;
      else damaged += entry.notes;
      continue;
    }
    for (const note of notes) store.restore(note);
    if (manifest.schema === SCHEMA) layout.parts.set(entry.bucket, { name: entry.name, notes: new Set(notes) });
  }
  restoreLeftOut(store, manifest.leftOut);
  layouts.set(store, layout);
  // One reset says why: damage, which may be the disk's, before parts another save took away.
  const reset: VectorReset | null = damaged > 0 ? { kind: "notes_damaged", notes: damaged } : missing > 0 ? { kind: "notes_missing", notes: missing } : null;
  return { vectors: { store, reset }, missing };
}

/**
 * Puts the root's record of notes left out back into the store. A list not of its shape is ignored
 * whole: the notes then read as waiting, which is what a root without one says. A note edited since
 * reads as waiting too, by the store's own rule (`leftOutAs` compares its date and size).
 */
function restoreLeftOut(store: VectorStore, saved: unknown): void {
  if (saved === undefined) return;
  const checked = leftOutSchema.safeParse(saved);
  if (!checked.success) return;
  for (const { path, mtime, size, reason } of checked.data) if (isLeftOutReason(reason)) store.leaveOut({ path, mtime, size }, reason);
}

function isLeftOutReason(reason: string): reason is LeftOutReason {
  return Object.hasOwn(LEFT_OUT_REASONS, reason);
}

/** Whether the root is no longer the one read: each save's root names parts of a token of its own, so its bytes differ. */
async function rootChanged(cache: VectorCache, before: Uint8Array): Promise<boolean> {
  const now = await cache.read(ROOT_PART);
  return now === null || now.length !== before.length || now.some((byte, i) => byte !== before[i]);
}

/**
 * Saves the store: the parts whose notes changed since its last load or save, then the root. Rejects
 * when a write fails; what this save wrote is taken away again, and the next save tries once more.
 * `notesComing`: how many notes the store will hold once the run saving it is done (the vault's), so
 * the parts are laid out for them from a first embedding's first save, not laid out anew (every part
 * rewritten) once it has grown past what its first layout holds. `clock`: the save's, on which the
 * parts its root stops naming wait before they go (unlisted-parts.ts).
 */
export async function saveStoredVectors(cache: VectorCache, store: VectorStore, notesComing = 0, clock: SaveClock = systemClock): Promise<void> {
  const before = layouts.get(store);
  const unlisted = unlistedPartsOf(store);
  const token = newSaveToken();
  // A listing that fails checks nothing: the writes then say what is wrong with the cache.
  const stored = await storedNames(cache);
  const buckets = bucketsFor(Math.max(store.size, notesComing), before?.buckets ?? null);
  const kept = before?.buckets === buckets ? before.parts : new Map<number, SavedPart>();
  const dimensions = store.dimensions ?? 0;
  const parts = new Map<number, SavedPart>();
  const written = new Set<string>();
  const writePart = async (bucket: number, notes: NoteVectors[]): Promise<void> => {
    const name = `vectors-${token}-${bucket}`;
    unlisted.writing(name);
    await cache.write(name, await encodePart(notes, dimensions));
    written.add(name);
    parts.set(bucket, { name, notes: new Set(notes) });
  };
  try {
    for (const [bucket, notes] of notesByBucket(store, buckets)) {
      const old = kept.get(bucket);
      // One that another process's save took away (it named none of ours) is written again.
      if (old && sameNotes(old.notes, notes) && (stored === null || stored.has(old.name))) parts.set(bucket, old);
      else await writePart(bucket, notes);
    }
    await writeGoneAgain(cache, parts, writePart);
    unlisted.replacing(await namesInStoredRoot(cache));
    await cache.write(ROOT_PART, await encodeRoot(store, buckets, parts));
  } catch (error) {
    // No root names them, and they take room (a full disk's, a quota's): away now rather than at the next save.
    await cache.remove([...written]).catch(() => undefined);
    throw error;
  }
  unlisted.nameParts(Array.from(parts.values(), (p) => p.name), clock);
  layouts.set(store, { buckets, parts });
  await removeUnnamedParts(cache, parts, unlisted, clock);
}

/**
 * Each part the root will name that is no longer stored, written again: another process's save may
 * have taken it away since this save listed the cache (a kept one, by a process that read an older
 * root and dates the part by its writing) or since this save wrote it (its date read against a wall
 * clock set forward since). Named by the root, it would be missing at the next load. A listing that
 * fails checks nothing.
 */
async function writeGoneAgain(cache: VectorCache, parts: Map<number, SavedPart>, writePart: (bucket: number, notes: NoteVectors[]) => Promise<void>): Promise<void> {
  if (parts.size === 0) return;
  const stored = await storedNames(cache);
  if (stored === null) return;
  for (const [bucket, part] of [...parts]) if (!stored.has(part.name)) await writePart(bucket, [...part.notes]);
}

/**
 * Takes away the parts no root names that may go now (replaced by this save or an earlier one, left
 * by a save killed midway, named by VRV2 or by another model's root): see unlisted-parts.ts for when.
 * Best effort: the save is done; a failure leaves them to the next save.
 */
async function removeUnnamedParts(cache: VectorCache, parts: Map<number, SavedPart>, unlisted: UnlistedParts, clock: SaveClock): Promise<void> {
  const listed = new Set([ROOT_PART, ...Array.from(parts.values(), (p) => p.name)]);
  try {
    const going = await unlisted.partsToGo(cache, await cache.names(), listed, isVectorPartName, clock);
    if (going.length === 0) return;
    await cache.remove(going);
    unlisted.removed(going);
  } catch {
    // The save itself is done; they are tried again next time.
  }
}

/**
 * The parts the stored root names (of any model): those this save's root is about to replace,
 * another process's as well as ours; and what `embed` counts as the vectors on disk. None when there is none, it holds the one blob of VRV1, or it
 * cannot be read or is damaged (no load could use it either).
 */
export async function namesInStoredRoot(cache: VectorCache): Promise<string[]> {
  const root = await cache.read(ROOT_PART).catch(() => null);
  if (root === null || !isPartsRoot(root)) return [];
  const read = await readManifest(root).catch(() => null);
  return read?.ok ? read.manifest.parts.map((p) => p.name) : [];
}

function notesByBucket(store: VectorStore, buckets: number): Map<number, NoteVectors[]> {
  const out = new Map<number, NoteVectors[]>();
  for (const note of store.savedEntries()) {
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

async function encodeRoot(store: VectorStore, buckets: number, parts: Map<number, SavedPart>): Promise<Uint8Array> {
  const manifest: Manifest = {
    schema: SCHEMA,
    model: store.model ?? "",
    dimensions: store.dimensions ?? 0,
    // Six decimals: the root stays small, and a cosine against it moves far less than SAME_MODEL_COSINE's margin.
    fingerprint: store.fingerprint ? Array.from(store.fingerprint, (x) => Math.round(x * 1e6) / 1e6) : null,
    buckets,
    parts: Array.from(parts, ([bucket, part]) => ({ name: part.name, bucket, notes: part.notes.size })).sort((a, b) => a.bucket - b.bucket),
  };
  const leftOut = Array.from(store.leftOutNotes(), ({ path, mtime, size, reason }) => ({ path, mtime, size, reason }));
  if (leftOut.length > 0) manifest.leftOut = leftOut;
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

/** Whether the bytes are a root of parts, of this version or VRV2 (else they are VRV1's blob, or no vectors at all). */
function isPartsRoot(bytes: Uint8Array): boolean {
  return hasMagic(bytes, ROOT_MAGIC) || hasMagic(bytes, COUNTED_ROOT_MAGIC);
}

async function readManifest(bytes: Uint8Array): Promise<ManifestRead> {
  const counted = hasMagic(bytes, COUNTED_ROOT_MAGIC);
  const body = await checkedBody(bytes, counted ? COUNTED_ROOT_MAGIC : ROOT_MAGIC);
  if (typeof body === "string") return corrupt(`the list of parts ${body}`);
  const header = headerOf(body);
  if (header === null) return corrupt("the list of parts is not JSON");
  const checked = manifestSchema.safeParse(header.json);
  if (!checked.success) return corrupt(`the list of parts is not in the expected shape (${checked.error.issues[0]?.message ?? "unknown"})`);
  const manifest = checked.data;
  if ((manifest.schema === COUNTED_SCHEMA) !== counted) return corrupt(`the list of parts says ${manifest.schema} in a ${counted ? COUNTED_ROOT_MAGIC : ROOT_MAGIC} root`);
  const buckets = new Set<number>();
  for (const part of manifest.parts) {
    const possible = isPossibleName(part, manifest) && part.bucket < manifest.buckets;
    if (!possible || buckets.has(part.bucket) || manifest.dimensions === 0) return corrupt(`part ${part.name} is not possible in the list of parts`);
    buckets.add(part.bucket);
  }
  return { ok: true, manifest };
}

/** Whether the part's name is one its root's version gives its bucket (VRV2: at a save it had counted to). */
function isPossibleName(part: PartEntry, manifest: Manifest): boolean {
  if (manifest.schema === SCHEMA) return PART_NAME.exec(part.name)?.[1] === String(part.bucket);
  const match = COUNTED_PART_NAME.exec(part.name);
  return match !== null && manifest.saves !== undefined && Number(match[1]) <= manifest.saves && match[2] === String(part.bucket);
}

/** The part's notes, or null when it is damaged or not what the root says it holds. */
async function notesOfPart(bytes: Uint8Array, entry: PartEntry, manifest: Manifest): Promise<NoteVectors[] | null> {
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
