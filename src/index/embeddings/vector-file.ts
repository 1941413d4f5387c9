// The vectors as versions before VRV2 kept them: one binary blob, written whole at every save
// (vector-parts.ts keeps them in parts now). Still read, so hours of embedding are not lost: the
// first save after it writes the parts over it. A blob that is damaged, of another version or of
// another model is an empty store with a VectorReset saying why — never an error.
//
// Layout (little-endian):
//   "VRV1"                        4 bytes: magic and format version
//   header length H               uint32
//   header                        H bytes of UTF-8 JSON (VectorFileHeader), padded with spaces to 4
//   1 / |row| for every row       float32 × rows
//   every row's values            int8 × rows × dimensions
// Rows are each note's in header order: the note's own vector, then one per unit. The loader works
// 1 / |row| out again from the row rather than trust it (a damaged one, 1e30 or NaN, would make an
// impossible cosine and move its note to the top), and then compares it with the stored one, which
// the writer took from the same whole-number sums: the two agree to the bit unless the file changed
// after it was written. A note with a row where they disagree is not loaded — a flipped bit in its
// values would otherwise skew its cosine for good (each save writes what was loaded) — and is
// embedded again; the rest of the file is kept. The sums cost one pass over bytes the load copies.
import * as z from "zod";
import { errorMessage } from "../../text/error-message";
import type { UnitKind, UnitPlace } from "./embedding-units";
import { inverseNorm } from "./quantize";
import { VectorStore, type NoteVectors } from "./vector-store";
import type { VectorReset } from "./vector-reset";

const MAGIC = "VRV1";
const SCHEMA = "vault-research.vectors.v1";

/** A unit's place, as a tuple to keep the header small: kind, line, start, end, heading path. */
type UnitTuple = [UnitKind, number, number, number, string[]];

/** A note's facts and unit places as a header lists them (here and in vector-parts.ts). */
export const noteEntrySchema = z.object({
  path: z.string(),
  mtime: z.number(),
  size: z.number(),
  // Kept since the units' cut was recorded; a note without them is checked again (vector-store's plan).
  cut: z.string().default(""),
  hash: z.string().default(""),
  units: z.array(z.tuple([z.enum(["title", "headings", "section"]), z.number(), z.number(), z.number(), z.array(z.string())])),
});

export type NoteEntry = z.infer<typeof noteEntrySchema>;

const headerSchema = z.object({
  schema: z.literal(SCHEMA),
  model: z.string(),
  dimensions: z.number().int().nonnegative(),
  // The model's answer for FINGERPRINT_TEXT (vector-store.ts); files from before it was kept have none.
  fingerprint: z.array(z.number()).nullable().default(null),
  notes: z.array(noteEntrySchema),
});

type VectorFileHeader = z.infer<typeof headerSchema>;

/** The blob as versions before VRV2 wrote it (the bench and the tests still make one, to read it). */
export function serializeVectors(store: VectorStore): Uint8Array {
  const d = store.dimensions ?? 0;
  const notes = Array.from(store.entries());
  const header: VectorFileHeader = {
    schema: SCHEMA,
    model: store.model ?? "",
    dimensions: d,
    // Six decimals: the header stays small, and a cosine against it moves far less than the test's margin.
    fingerprint: store.fingerprint ? Array.from(store.fingerprint, (x) => Math.round(x * 1e6) / 1e6) : null,
    notes: notes.map(noteEntryOf),
  };
  // Padding to 4 keeps the float32 part aligned for readers that map it straight into memory.
  const unpadded = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(unpadded.length / 4) * 4;
  const json = new Uint8Array(padded).fill(0x20);
  json.set(unpadded);
  const rows = notes.reduce((sum, n) => sum + n.invNorms.length, 0);
  const bytes = new Uint8Array(8 + padded + rows * 4 + rows * d);
  const view = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  view.setUint32(4, padded, true);
  bytes.set(json, 8);
  let normAt = 8 + padded;
  let valueAt = normAt + rows * 4;
  for (const note of notes) {
    for (const invNorm of note.invNorms) {
      view.setFloat32(normAt, invNorm, true);
      normAt += 4;
    }
    bytes.set(new Uint8Array(note.values.buffer, note.values.byteOffset, note.values.byteLength), valueAt);
    valueAt += note.values.length;
  }
  return bytes;
}

export type VectorLoad = { store: VectorStore; reset: VectorReset | null };

/** A note's header entry: its facts and its units' places as tuples. */
export function noteEntryOf(n: NoteVectors): NoteEntry {
  return { path: n.path, mtime: n.mtime, size: n.size, cut: n.cut, hash: n.textHash, units: n.units.map(toTuple) };
}

/** A note back from its header entry and its rows (1 / |row| worked out from them, as `inverseNorms` says). */
export function noteFromEntry(n: NoteEntry, values: Int8Array, dimensions: number): NoteVectors {
  return { path: n.path, mtime: n.mtime, size: n.size, cut: n.cut, textHash: n.hash, units: n.units.map(fromTuple), values, invNorms: inverseNorms(values, n.units.length + 1, dimensions) };
}

/** The stored vectors of a blob, or an empty store and why; `model` is the one in use now. */
export function readVectors(bytes: Uint8Array | null, model: string): VectorLoad {
  if (bytes === null || bytes.length === 0) return { store: new VectorStore(model), reset: null };
  const read = parseFile(bytes);
  if (!read.ok) return { store: new VectorStore(model), reset: read.reset };
  // A file saved before the first vector says 0 dimensions: the store has none yet.
  const print = read.header.fingerprint;
  const store = new VectorStore(read.header.model, read.header.dimensions || null, print && print.length === read.header.dimensions ? Float32Array.from(print) : null);
  for (const note of read.notes) store.restore(note);
  const reset = store.adoptModel(model);
  if (read.damaged === 0) return { store, reset };
  // Another model's: every note is embedded again, the damaged ones with the rest.
  if (read.header.model !== model) return { store, reset: { kind: "model_changed", from: read.header.model, to: model, notes: read.notes.length + read.damaged } };
  return { store, reset: { kind: "notes_damaged", notes: read.damaged } };
}

/** The header, the notes whose rows are as written, and how many notes were left out because theirs were not. */
type Parsed = { ok: true; header: VectorFileHeader; notes: NoteVectors[]; damaged: number } | { ok: false; reset: VectorReset };

function parseFile(bytes: Uint8Array): Parsed {
  if (bytes.length < 8) return corrupt("too short");
  const magic = new TextDecoder().decode(bytes.subarray(0, 4));
  if (magic !== MAGIC) return otherVersion(magic) ?? corrupt("not a vector file");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(4, true);
  if (8 + headerLength > bytes.length) return corrupt("the header runs past the end");
  let header: VectorFileHeader;
  try {
    const checked = headerSchema.safeParse(JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))));
    if (!checked.success) return corrupt(`the header is not in the expected shape (${checked.error.issues[0]?.message ?? "unknown"})`);
    header = checked.data;
  } catch (error) {
    return corrupt(`the header is not JSON: ${errorMessage(error)}`);
  }
  const d = header.dimensions;
  const rows = header.notes.reduce((sum, n) => sum + n.units.length + 1, 0);
  if (bytes.length !== 8 + headerLength + rows * 4 + rows * d) return corrupt(`${bytes.length} bytes where ${8 + headerLength + rows * (4 + d)} were expected`);
  let normAt = 8 + headerLength;
  let valueAt = normAt + rows * 4;
  const notes: NoteVectors[] = [];
  let damaged = 0;
  for (const n of header.notes) {
    const count = n.units.length + 1;
    const values = new Int8Array(bytes.slice(valueAt, valueAt + count * d).buffer);
    const invNorms = inverseNorms(values, count, d);
    if (agreesWithStored(invNorms, view, normAt)) notes.push({ path: n.path, mtime: n.mtime, size: n.size, cut: n.cut, textHash: n.hash, units: n.units.map(fromTuple), values, invNorms });
    else damaged++;
    normAt += count * 4;
    valueAt += count * d;
  }
  return { ok: true, header, notes, damaged };
}

/** Whether each row's 1 / |row| is the one stored at `at` (a NaN stored agrees with nothing). */
function agreesWithStored(invNorms: Float32Array, view: DataView, at: number): boolean {
  for (let row = 0; row < invNorms.length; row++) if (view.getFloat32(at + row * 4, true) !== invNorms[row]) return false;
  return true;
}

/** Each row's 1 / |row| exactly as `quantize` made it, as the store keeps it (float32). */
function inverseNorms(values: Int8Array, rows: number, d: number): Float32Array {
  const out = new Float32Array(rows);
  for (let row = 0; row < rows; row++) out[row] = inverseNorm(values, row * d, (row + 1) * d);
  return out;
}

function toTuple(u: UnitPlace): UnitTuple {
  return [u.kind, u.line, u.start, u.end, u.headingPath];
}

function fromTuple([kind, line, start, end, headingPath]: UnitTuple): UnitPlace {
  return { kind, line, start, end, headingPath };
}

/** A vector file of another version ("VRV" and its digit): older or newer than this one; null when it is none. */
function otherVersion(magic: string): Parsed | null {
  const match = /^VRV([0-9])$/.exec(magic);
  if (!match) return null;
  return { ok: false, reset: { kind: Number(match[1]) > Number(MAGIC[3]) ? "newer_version" : "old_version", found: magic } };
}

function corrupt(detail: string): Parsed {
  return { ok: false, reset: { kind: "corrupt", detail } };
}
