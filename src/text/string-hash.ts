// A fast 32-bit hash of a string, for spreading things evenly where nothing is at stake (which
// part of a cache a note's vector goes to, which passages a sample keeps). FNV-1a over the
// UTF-16 code units; `mix32` stirs a number's bits so that close inputs land far apart. Not the
// source keys' hash (evidence/hash.ts): those must never change and need 64 bits.

/** FNV-1a (32-bit) of the text's UTF-16 code units, as an unsigned integer. */
export function fnv1a32(text: string, start = 0x811c9dc5): number {
  let hash = start;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** MurmurHash3's finaliser: every bit of `x` moves about half of the result's, unsigned. */
export function mix32(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
