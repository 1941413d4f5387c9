// The SHA-256 of a value as IndexedDB stores it (plain data and typed arrays): what the index
// cache keeps beside each of its parts. IndexedDB gives back whatever bytes it finds, and where the
// parts are big it keeps them in files beside its database, with no checksum of their own: a
// flipped bit in a term or a posting's count is another possible part (a word no longer found, a
// note scored 65,537 times too high), which the index's shape checks let through. The CLI's parts
// and the vectors carry a SHA-256 for that reason; this is the same for a value that is not bytes.
//
// The value is written out as bytes, a tag for each value's kind before it, so two equal values give
// the same bytes and a change of any value, kind or place gives others; those bytes are hashed.

/** Each value's kind, in one byte before it. */
const Tag = { Undefined: 0, Null: 1, False: 2, True: 3, Number: 4, NotANumber: 5, BigInt: 6, String: 7, Array: 8, Record: 9, Bytes: 10, Date: 11, Map: 12, Set: 13 } as const;
type Tag = (typeof Tag)[keyof typeof Tag];

/** The SHA-256 of `value`. Throws for a kind of value the index never stores (a Blob, a function…). */
export async function digestOfValue(value: unknown): Promise<Uint8Array> {
  const out = new ByteWriter();
  writeValue(out, value, new Set());
  return new Uint8Array(await crypto.subtle.digest("SHA-256", out.written()));
}

/** Whether two digests are the same bytes. */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function writeValue(out: ByteWriter, value: unknown, open: Set<object>): void {
  switch (typeof value) {
    case "undefined":
      return out.tag(Tag.Undefined);
    case "boolean":
      return out.tag(value ? Tag.True : Tag.False);
    case "number":
      // NaN has many bit patterns, and a copy need not keep the one it was given.
      if (Number.isNaN(value)) return out.tag(Tag.NotANumber);
      out.tag(Tag.Number);
      return out.float64(value);
    case "bigint":
      out.tag(Tag.BigInt);
      return out.text(value.toString());
    case "string":
      out.tag(Tag.String);
      return out.text(value);
    case "object":
      if (value === null) return out.tag(Tag.Null);
      if (open.has(value)) throw new TypeError("a value that holds itself cannot be stored as a part");
      open.add(value);
      writeObject(out, value, open);
      open.delete(value);
      return;
    default:
      throw new TypeError(`a ${typeof value} cannot be stored as a part`);
  }
}

function writeObject(out: ByteWriter, value: object, open: Set<object>): void {
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) {
    const bytes = ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new Uint8Array(value);
    out.tag(Tag.Bytes);
    out.text(Object.prototype.toString.call(value));
    out.uint32(bytes.length);
    return out.bytes(bytes);
  }
  if (Array.isArray(value)) {
    out.tag(Tag.Array);
    out.uint32(value.length);
    // Indexes, not `for…of` over entries only: a hole is written as undefined, as a copy reads it.
    for (let i = 0; i < value.length; i++) writeValue(out, value[i], open);
    return;
  }
  if (value instanceof Date) {
    out.tag(Tag.Date);
    return out.float64(value.getTime());
  }
  if (value instanceof Map) {
    out.tag(Tag.Map);
    out.uint32(value.size);
    for (const [key, item] of value) {
      writeValue(out, key, open);
      writeValue(out, item, open);
    }
    return;
  }
  if (value instanceof Set) {
    out.tag(Tag.Set);
    out.uint32(value.size);
    for (const item of value) writeValue(out, item, open);
    return;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) throw new TypeError(`an object of class ${className(value)} cannot be stored as a part`);
  const keys = Object.keys(value);
  out.tag(Tag.Record);
  out.uint32(keys.length);
  for (const key of keys) {
    out.text(key);
    writeValue(out, (value as Record<string, unknown>)[key], open);
  }
}

function className(value: object): string {
  const name: unknown = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? name : "unknown";
}

/** Bytes appended to a buffer that doubles when full. */
class ByteWriter {
  private buffer = new Uint8Array(1 << 16);
  private view = new DataView(this.buffer.buffer);
  private length = 0;

  tag(tag: Tag): void {
    this.room(1);
    this.buffer[this.length++] = tag;
  }

  uint32(value: number): void {
    this.room(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  float64(value: number): void {
    this.room(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  /** Its length, then its UTF-16 code units (a lone surrogate is kept, as a copy keeps it). */
  text(value: string): void {
    this.uint32(value.length);
    this.room(2 * value.length);
    for (let i = 0; i < value.length; i++) {
      this.view.setUint16(this.length, value.charCodeAt(i), true);
      this.length += 2;
    }
  }

  bytes(value: Uint8Array): void {
    this.room(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
  }

  written(): Uint8Array<ArrayBuffer> {
    return this.buffer.subarray(0, this.length);
  }

  private room(more: number): void {
    if (this.length + more <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + more) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
    this.view = new DataView(grown.buffer);
  }
}
