// The live line while a vault is indexed: notes read of those to read, the rate and the time left,
// redrawn in place on a terminal and cleared when done. Nothing at all when stderr is not a
// terminal, with --quiet, or when the work is over before a person would notice (0.3 s).
// It watches the index from outside: a NoteStore that counts reads, and the index's own rule for
// which listed files it will have to read (`isCurrent`: a note read too soon after its date is read
// again, though its date and size match; a copy of the rule without that counted more read than in all).
import type { VaultIndex } from "../index/vault-index";
import { monotonicReading, systemClock, type Clock, type NoteStore } from "../ports";
import { has, type ParsedArgs } from "./args";
import { chattiness, type CliIo } from "./cli-io";

/** Quiet start: a sync from a warm cache is over before this and prints nothing. */
const SHOW_AFTER_MS = 300;
/** Redraws at most this often. */
const REDRAW_MS = 100;

export interface ReadProgress {
  /** `store`, counting what the index reads through it. */
  watch(store: NoteStore): NoteStore;
  /** Clears the line. */
  finish(): void;
}

/** The live line for this command, or null when it must not be shown. */
export function indexReadProgress(index: Pick<VaultIndex, "isIndexable" | "isCurrent">, io: CliIo, args: ParsedArgs): ReadProgress | null {
  const { liveLine } = chattiness(io, { quiet: has(args, "quiet"), noColor: has(args, "no-color") });
  if (!liveLine || !io.statusLine) return null;
  return new LiveReadProgress(index, io.statusLine, io.clock ?? systemClock);
}

class LiveReadProgress implements ReadProgress {
  private read = 0;
  private total: number | null = null;
  private readonly startedAt: number;
  /** When the listing was in and reading began: the rate counts from here, not from loading the cache. */
  private readingSince: number | null = null;
  private lastDrawAt = Number.NEGATIVE_INFINITY;
  private shown = false;
  /**
   * Set by `finish`. The index keeps the watched store after its sync: learning the vault's
   * language reads every note again, and each of those reads would draw "40 of 20 notes" anew,
   * after the line was cleared, over the command's own output.
   */
  private over = false;

  constructor(
    private readonly index: Pick<VaultIndex, "isIndexable" | "isCurrent">,
    private readonly draw: (text: string | null) => void,
    private readonly clock: Clock,
  ) {
    this.startedAt = this.now();
  }

  /**
   * Times here are on the clock's monotonic reading: on the wall clock, one set back an hour froze the
   * line for that hour, and one stepped forward showed a rate of next to nothing and days left.
   */
  private now(): number {
    return monotonicReading(this.clock);
  }

  watch(store: NoteStore): NoteStore {
    return {
      list: async () => {
        const files = await store.list();
        this.total = files.filter((f) => this.index.isIndexable(f.path) && !this.index.isCurrent(f)).length;
        this.readingSince = this.now();
        return files;
      },
      read: async (path) => {
        try {
          return await store.read(path);
        } finally {
          if (!this.over) {
            this.read++;
            this.redraw();
          }
        }
      },
      ...(store.stat ? { stat: (path: string) => store.stat!(path) } : {}),
      exists: (path) => store.exists(path),
      create: (path, content) => store.create(path, content),
    };
  }

  finish(): void {
    this.over = true;
    if (this.shown) this.draw(null);
    this.shown = false;
  }

  private redraw(): void {
    const now = this.now();
    const since = this.readingSince ?? this.startedAt;
    // A rate over the first few reads says nothing yet: one redraw interval of reading first.
    if (now - this.startedAt < SHOW_AFTER_MS || now - since < REDRAW_MS || now - this.lastDrawAt < REDRAW_MS) return;
    this.lastDrawAt = now;
    this.shown = true;
    this.draw(readProgressLine(this.read, this.total, now - since));
  }
}

/** "Indexing: 3,200 of 9,300 notes · 1,850 notes/s · about 4 s left". */
export function readProgressLine(read: number, total: number | null, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? (read * 1000) / elapsedMs : 0;
  const count = total === null ? `${read.toLocaleString("en-US")} notes read` : `${read.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} notes`;
  const parts = [`Indexing: ${count}`, `${Math.round(rate).toLocaleString("en-US")} notes/s`];
  if (total !== null && rate > 0 && total > read) parts.push(`about ${formatSeconds((total - read) / rate)} left`);
  return parts.join(" · ");
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}
