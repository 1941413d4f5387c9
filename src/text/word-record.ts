// A record keyed by what a person typed. A plain `{}` answers "constructor", "toString" or
// "__proto__" from its prototype, so a search for one of those words read a function as its list of
// fields and failed; a record without a prototype holds those words like any other.

/** An empty record whose keys are words (no prototype: every word is its own key). */
export function wordRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** The value a record holds for `key` itself, never one from its prototype. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
