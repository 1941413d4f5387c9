// Addressing every value inside a saved index cache's parts (plain data and typed arrays, as the
// IndexCache port carries them), for tests that break one value at a time.

export type PartPath = (string | number)[];

/** An object or an array, by the keys a PartPath holds. */
type Container = Record<string | number, unknown>;

/** The path of every value inside `value`, the root excluded; a typed array is one value. */
export function partsOf(value: unknown, at: PartPath = []): PartPath[] {
  if (typeof value !== "object" || value === null || ArrayBuffer.isView(value)) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...at, key], ...partsOf(child, [...at, key])]);
}

/** A copy of `value` with the value at `path` replaced; `undefined` removes an object's key. */
export function withReplaced(value: unknown, path: PartPath, replacement: unknown): unknown {
  const root = structuredClone(value);
  // partsOf found the path, so every step on it is an object or an array.
  let node = root as Container;
  for (const key of path.slice(0, -1)) node = node[key] as Container;
  const last = path[path.length - 1];
  if (replacement === undefined && !Array.isArray(node)) delete node[last];
  else node[last] = replacement;
  return root;
}
