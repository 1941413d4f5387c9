// Growing a typed array: a new one of `length` (at least as long), the old values copied to its
// start. One home for the idiom the index's typed buffers (postings written for a save, the
// vault-language lane's passage book, matrices and notes' vectors) grow by.

type TypedArray = Int8Array | Int32Array | Uint32Array | Float32Array | Float64Array;

export function grown<T extends TypedArray>(old: T, length: number): T {
  const next = new (old.constructor as new (n: number) => T)(length);
  next.set(old);
  return next;
}
