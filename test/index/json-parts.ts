// Addressing every part of a JSON document, for tests that break one part at a time.

export type JsonPath = (string | number)[];

/** The path of every value in a JSON tree, the root excluded. */
export function partsOf(value: unknown, at: JsonPath = []): JsonPath[] {
  if (typeof value !== "object" || value === null) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...at, key], ...partsOf(child, [...at, key])]);
}

/** `json` with the value at `path` replaced. */
export function replaced(json: string, path: JsonPath, value: unknown): string {
  const root = JSON.parse(json);
  let node = root;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]] = value;
  return JSON.stringify(root);
}
