// How a refusal repeats a value it was given (a flag's, a spec's part, a folder's name): quoted, or,
// when it looks like an API key pasted into the wrong place, not at all. A key the environment does
// not hold is in no scrubber's list: repeated, it would reach the terminal, and any log of it, whole.
// Which texts look like keys is settings.ts's `looksLikeApiKey` (text/ imports nothing): the caller
// passes it, so the key shapes keep their one home there and this wording its one home here.

/** What a refusal says in place of a value that looks like an API key. */
export const KEY_NOT_REPEATED = "a value that looks like an API key";

/** `raw` quoted for a message, or `KEY_NOT_REPEATED` when `looksLikeKey(raw)`. */
export function valueShown(raw: string, looksLikeKey: (text: string) => boolean): string {
  return looksLikeKey(raw) ? KEY_NOT_REPEATED : `"${raw}"`;
}
