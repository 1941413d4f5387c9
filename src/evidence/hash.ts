// A small, stable, dependency-free hash for source keys. It must give the same answer on desktop,
// mobile and in Node for years (keys end up in trace notes and promoted notes), so it is FNV-1a
// 64-bit over the UTF-8 bytes: a fixed, published algorithm with no platform crypto involved.
// It is not a security hash; it only has to spread paths and URLs evenly.

const FNV_OFFSET_BASIS = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;

const encoder = new TextEncoder();

/** FNV-1a 64-bit of the text's UTF-8 bytes, as 16 lower-case hex digits. */
export function fnv1a64Hex(text: string): string {
  let hash = FNV_OFFSET_BASIS;
  for (const byte of encoder.encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * FNV_PRIME) & MASK_64;
  }
  return hash.toString(16).padStart(16, "0");
}

/** The first `length` hex digits (1–16, default 10) of the FNV-1a 64-bit hash. */
export function shortHash(text: string, length = 10): string {
  if (!Number.isInteger(length) || length < 1 || length > 16) {
    throw new RangeError(`shortHash length must be an integer from 1 to 16, got ${length}`);
  }
  return fnv1a64Hex(text).slice(0, length);
}
