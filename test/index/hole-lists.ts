// Lists as a damaged or hostile cache part can hold them: v8's deserialiser and IndexedDB give back
// a list with holes, and one whose length says 4 billion from a few bytes. For tests that a loader
// finds a hole and never walks a list its length alone vouches for.

/** A copy of `list` with a hole at `at`. */
export function withHole<T>(list: T[], at: number): T[] {
  const copy: T[] = [];
  copy.length = list.length;
  list.forEach((item, i) => {
    if (i !== at) copy[i] = item;
  });
  return copy;
}

/** A list of `length` holes that throws once more than `most` of its places are looked at. */
export function listWalkedAtMost(length: number, most: number): unknown[] {
  const holes: unknown[] = [];
  holes.length = length;
  let looks = 0;
  const look = (key: string | symbol): void => {
    if (typeof key === "string" && /^[0-9]+$/.test(key) && ++looks > most) throw new Error("the whole list was walked");
  };
  return new Proxy(holes, {
    has: (target, key) => (look(key), key in target),
    get: (target, key): unknown => (look(key), Reflect.get(target, key) as unknown),
  });
}
