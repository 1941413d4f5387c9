// Every search and research query is logged, with its level, filters, result keys in order,
// latency and the results the user then opened — so a user can see what the dial does for them
// and `eval:search` can replay real queries at every level. The log is JSON lines in a local
// file behind the QueryLogFile port, rotated at `maxBytes`, never in the vault, never sent
// anywhere; it can be switched off and cleared. A failed write never fails a search. Every line
// loses the secrets its scrubber knows before it is written: a key typed into a search box or a
// question never reaches the file.
import * as z from "zod";
import { systemClock, type Clock } from "../../ports";
import { cutText } from "../../text/cut-text";
import { errorMessage } from "../../text/error-message";
import { secretScrubber, type SecretScrubber } from "../../text/secret-scrub";
import type { QueryLogFile } from "./query-log-file";

export const QUERY_LOG_SCHEMA = "vault-research.query-log.v1";
export const DEFAULT_QUERY_LOG_BYTES = 1024 * 1024;
/** Bounds one line, so no line outgrows a rotation. */
const MAX_QUERY_CHARS = 1000;
const MAX_LOGGED_RESULTS = 50;
/** Filters come from whoever asks (an MCP client sends any number of tags), so they are bounded too. */
const MAX_LOGGED_FILTERS = 50;
const MAX_FILTER_CHARS = 200;
/** Searches whose clicks can still be told apart from a clear: far more than any screen shows. */
const MAX_REMEMBERED_SEARCHES = 1000;
/** How every line the log writes begins (JSON.stringify keeps the key order below). */
const LINE_START = `{"schema":${JSON.stringify(QUERY_LOG_SCHEMA)}`;

const levelSchema = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]);

const searchLine = z.object({
  schema: z.literal(QUERY_LOG_SCHEMA),
  type: z.literal("search"),
  id: z.string(),
  at: z.string(),
  surface: z.string(),
  query: z.string(),
  level: levelSchema,
  ran_level: levelSchema,
  filters: z.object({ folders: z.array(z.string()), tags: z.array(z.string()) }),
  results: z.array(z.string()),
  latency_ms: z.number(),
  /** Level 1 found nothing and this search took the closest notes by spelling instead (DialRequest.loose). */
  loose: z.literal(true).optional(),
});

const clickLine = z.object({
  schema: z.literal(QUERY_LOG_SCHEMA),
  type: z.literal("click"),
  id: z.string(),
  at: z.string(),
  key: z.string(),
  rank: z.number().int(),
});

const lineSchema = z.discriminatedUnion("type", [searchLine, clickLine]);

export type QueryLogSearch = z.infer<typeof searchLine>;
export type QueryLogClick = z.infer<typeof clickLine>;
export type QueryLogLine = z.infer<typeof lineSchema>;

export interface SearchToLog {
  query: string;
  level: 1 | 2 | 3 | 4;
  ranLevel: 1 | 2 | 3 | 4;
  filters: { folders: string[]; tags: string[] };
  /** Result keys (vault paths), best first. */
  results: readonly string[];
  latencyMs: number;
  /** Which surface asked: "search-modal", "panel", "research", "cli", "mcp"… */
  surface: string;
  /** Level 1's fallback when nothing matched: the closest notes by spelling, not what level 1 finds. */
  loose?: boolean;
}

/**
 * Where the log stood when a search began (`QueryLog.mark`): a search that began before the log was
 * cleared is not written after the clear, however long it ran.
 */
export interface QueryLogMark {
  readonly clears: number;
}

export interface QueryLogOptions {
  file: QueryLogFile;
  clock?: Pick<Clock, "now">;
  /** The current file is rotated before it would pass this many bytes (default 1 MB). */
  maxBytes?: number;
  /** Default true; the setting that turns logging off sets this. */
  enabled?: boolean;
  /**
   * The scrubber of every secret the process holds (the CLI: its environment's keys; the plugin:
   * secret storage's). Asked at each write, so a key set since is scrubbed too. Default: none.
   */
  scrubber?: () => SecretScrubber | Promise<SecretScrubber>;
}

const NO_SECRETS = secretScrubber([]);

export class QueryLog {
  enabled: boolean;
  /** The last write that failed, in words (cleared by the next one that works). */
  problem: string | null = null;
  private readonly file: QueryLogFile;
  private readonly clock: Pick<Clock, "now">;
  private readonly maxBytes: number;
  private readonly scrubber: () => SecretScrubber | Promise<SecretScrubber>;
  private writes: Promise<void> = Promise.resolve();
  private counter = 0;
  /** How many times the log was cleared: a line asked for before a clear is not written after it. */
  private clears = 0;
  /** The clear count each recent search id was given under, so a click on a result of a cleared search is not written either. */
  private readonly searchMarks = new Map<string, number>();

  constructor(options: QueryLogOptions) {
    this.file = options.file;
    this.clock = options.clock ?? systemClock;
    this.maxBytes = options.maxBytes ?? DEFAULT_QUERY_LOG_BYTES;
    this.enabled = options.enabled ?? true;
    this.scrubber = options.scrubber ?? (() => NO_SECRETS);
  }

  /** Where the log stands now: take it when a search begins and give it to `recordSearch` when it ends. */
  mark(): QueryLogMark {
    return { clears: this.clears };
  }

  /**
   * Logs a search and returns its id (for click-throughs), or null when logging is off or failed.
   * `began`: the mark taken when the search began (default: now), so a clear while it ran drops it.
   */
  async recordSearch(search: SearchToLog, began: QueryLogMark = this.mark()): Promise<string | null> {
    if (!this.enabled) return null;
    const clears = began.clears;
    const id = `q${this.clock.now().toString(36)}-${(this.counter++).toString(36)}`;
    const scrub = await this.readScrubber();
    if (!scrub) return null;
    const line: QueryLogSearch = {
      schema: QUERY_LOG_SCHEMA,
      type: "search",
      id,
      at: new Date(this.clock.now()).toISOString(),
      surface: search.surface,
      // Scrubbed before it is cut, so no key survives as a cut-off prefix.
      query: cutText(scrub.text(search.query), MAX_QUERY_CHARS),
      level: search.level,
      ran_level: search.ranLevel,
      filters: { folders: boundedFilter(search.filters.folders, scrub), tags: boundedFilter(search.filters.tags, scrub) },
      results: search.results.slice(0, MAX_LOGGED_RESULTS),
      latency_ms: Math.round(search.latencyMs),
      ...(search.loose ? { loose: true as const } : {}),
    };
    this.rememberMark(id, clears);
    return (await this.append(scrub.value(line), clears)) ? id : null;
  }

  /** The user opened result `key`, shown at 1-based `rank`, of search `id`. */
  async recordClick(id: string, key: string, rank: number): Promise<void> {
    if (!this.enabled) return;
    // A result still on screen from a search the user has since cleared: its click goes with it.
    const clears = this.searchMarks.get(id) ?? this.clears;
    const scrub = await this.readScrubber();
    if (!scrub) return;
    await this.append({ schema: QUERY_LOG_SCHEMA, type: "click", id, at: new Date(this.clock.now()).toISOString(), key: scrub.text(key), rank }, clears);
  }

  /** Every readable line, oldest first; lines that are not the log's shape are skipped and counted. */
  async read(): Promise<{ lines: QueryLogLine[]; skipped: number }> {
    await this.writes;
    const { previous, current } = await this.file.read();
    const lines: QueryLogLine[] = [];
    let skipped = 0;
    for (const raw of `${previous}\n${current}`.split("\n")) {
      if (raw.trim() === "") continue;
      const whole = parseLine(raw);
      if (whole) {
        lines.push(whole);
        continue;
      }
      skipped++;
      // A line cut short (the app quit mid-write, a sync tool truncated the file) has the next
      // line appended straight after it: that one is whole, and is kept.
      const glued = raw.lastIndexOf(LINE_START);
      const after = glued > 0 ? parseLine(raw.slice(glued)) : null;
      if (after) lines.push(after);
    }
    return { lines, skipped };
  }

  /**
   * The clear-log command: both files gone. In the queue with the writes, and a line whose write
   * began before it (its secrets still being read) is dropped: what was asked before the clear
   * does not appear after it.
   */
  async clear(): Promise<void> {
    this.clears++;
    const cleared = this.writes.then(() => this.file.clear());
    this.writes = cleared.catch(() => undefined);
    await cleared;
  }

  /** Remembers the last MAX_REMEMBERED_SEARCHES ids (a Map keeps insertion order: oldest first out). */
  private rememberMark(id: string, clears: number): void {
    this.searchMarks.set(id, clears);
    if (this.searchMarks.size > MAX_REMEMBERED_SEARCHES) this.searchMarks.delete(this.searchMarks.keys().next().value!);
  }

  /** The scrubber for this write; null, with the problem said, when the secrets could not be read: nothing unscrubbed is written. */
  private async readScrubber(): Promise<SecretScrubber | null> {
    try {
      return await this.scrubber();
    } catch (error) {
      this.problem = `The query log was not written: the secrets to keep out of it could not be read (${errorMessage(error)}).`;
      return null;
    }
  }

  /** Writes one after another, so two searches never both decide the file has room; `clears`: the count when the line was asked for. */
  private append(line: QueryLogLine, clears: number): Promise<boolean> {
    const text = `${JSON.stringify(line)}\n`;
    const bytes = new TextEncoder().encode(text).length;
    const write = this.writes.then(async () => {
      if (clears !== this.clears) throw new ClearedSince();
      const size = await this.file.size();
      if (size > 0 && size + bytes > this.maxBytes) await this.file.rotate();
      await this.file.append(text);
    });
    this.writes = write.catch(() => undefined);
    return write.then(
      () => {
        this.problem = null;
        return true;
      },
      (error: unknown) => {
        if (!(error instanceof ClearedSince)) this.problem = `The query log could not be written: ${errorMessage(error)}`;
        return false;
      },
    );
  }
}

/** A line asked for before the log was cleared: not written, and not a problem. */
class ClearedSince extends Error {}

/** One line read back, or null when it is not the log's shape (damaged, another program's, a later version's). */
function parseLine(raw: string): QueryLogLine | null {
  try {
    const checked = lineSchema.safeParse(JSON.parse(raw));
    return checked.success ? checked.data : null;
  } catch {
    return null;
  }
}

/** At most MAX_LOGGED_FILTERS entries, each scrubbed, then cut to MAX_FILTER_CHARS (as the query is). */
function boundedFilter(values: readonly string[], scrub: SecretScrubber): string[] {
  return values.slice(0, MAX_LOGGED_FILTERS).map((value) => cutText(scrub.text(value), MAX_FILTER_CHARS));
}
