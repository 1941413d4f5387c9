// Addressing every part of a JSON document, for tests that break one part at a time.

export type JsonPath = (string | number)[];

/** The path of every value in a JSON tree, the root excluded. */
export function partsOf(value: unknown, at: JsonPath = []): JsonPath[] {
  if (typeof value !== "object" || value === null) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...at, key], ...partsOf(child, [...at, key])]);
}
