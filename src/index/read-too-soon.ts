// When a note's date and size may be trusted to stand for the text the index read (git's "racily
// clean" entries). Disks date files coarsely — FAT to 2 s, ext3 and some network shares to 1 s — so an
// edit made in the tick the index read a note in, keeping its size, leaves the very date and size
// the index holds: compared by them the note looks unchanged, and its old text stayed until it
// changed again. A text read less than a tick after its date (or dated later than the read: a
// skewed share) proves nothing; the note is read again at the next look, until a read proves it.

/** The coarsest tick of file dates allowed for: FAT's two seconds. */
export const DATE_TICK_MS = 2_000;

/**
 * Whether a text whose read began at `readFrom` may be older than an edit dated `mtime`. The start
 * of the read, not its end: an edit made while a slow read (or a batch of them) was under way, in
 * the tick of `mtime`, keeps that date, and the end of the read is then already past the tick.
 */
export function readTooSoon(mtime: number, readFrom: number): boolean {
  return !(mtime <= readFrom - DATE_TICK_MS);
}

/**
 * The saved index has one number for a note's date. A note read too soon is saved with its date
 * moved this far below zero, which no disk dates a file (140,000 years back), so a restart knows
 * both its date and that its text is to be read again.
 */
const UNPROVEN_SHIFT = 2 ** 52;

/** The date a note is saved with. */
export function savedDate(mtime: number, unproven: boolean): number {
  return unproven && mtime >= 0 ? -UNPROVEN_SHIFT - mtime : mtime;
}

/** A saved date read back: the note's date, and whether its text still wants proving. */
export function fromSavedDate(saved: number): { mtime: number; unproven: boolean } {
  return saved <= -UNPROVEN_SHIFT ? { mtime: -UNPROVEN_SHIFT - saved, unproven: true } : { mtime: saved, unproven: false };
}
