// The seams between the pure core and the world. Adapters fill them: Obsidian's requestUrl,
// Vault, IndexedDB, secretStorage and Web Workers in the plugin; fetch, fs, a cache file, the
// environment and worker threads in the CLI; recorded exchanges and in-memory stand-ins in tests.
// Nothing here imports `obsidian` or `node:*`.

/** One HTTP request as the core sees it. Bodies are text; JSON is serialised by the caller. */
export interface HttpRequest {
  method: "GET" | "POST";
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** The adapter should give up after this long; callers also race it (requestUrl cannot abort). */
  timeoutMs?: number;
  /** Refuse bodies larger than this many bytes (when the adapter can tell before reading it all). */
  maxBytes?: number;
  /** Lets a run be cancelled; adapters that cannot abort simply ignore the late answer. */
  signal?: AbortSignal;
  /**
   * `manual`: hand a 3xx answer back as it is (the fetch guard follows redirects itself, checking
   * every hop). Adapters that cannot (requestUrl) follow redirects as they always do.
   */
  redirect?: "manual";
}

export interface HttpResponse {
  status: number;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The body decoded as UTF-8. */
  text: string;
  /** The body as received, when the adapter has it: pages in other charsets are decoded from it. */
  bytes?: Uint8Array;
}

/**
 * `redirect`: the server answered, but with redirects the request did not follow to an end (it kept
 * redirecting, or sent it to another site): it was reached, so it is never said as one that could not
 * be (`network`), which put "Could not reach SearXNG:" before "… kept redirecting".
 */
export type HttpFailureKind = "network" | "timeout" | "too_large" | "aborted" | "replay_miss" | "redirect";

/** Thrown by Http adapters when no response could be had at all (a 4xx/5xx is a response, not this). */
export class HttpFailure extends Error {
  constructor(
    readonly kind: HttpFailureKind,
    message: string,
  ) {
    super(message);
    this.name = "HttpFailure";
  }
}

export interface Http {
  request(req: HttpRequest): Promise<HttpResponse>;
}

/** What the index needs to know of a file to decide whether it changed. */
export interface NoteFileInfo {
  /** Vault-relative path with forward slashes, e.g. `Projects/Plan.md`. */
  path: string;
  /** Modification time, ms since the epoch. */
  mtime: number;
  /** Size in bytes. */
  size: number;
}

/** A folder of markdown notes: Obsidian's Vault in the plugin, a directory in the CLI. */
export interface NoteStore {
  /** Every markdown file (`.md`) in the vault. */
  list(): Promise<NoteFileInfo[]>;
  read(path: string): Promise<string>;
  /** Facts of one file, or null when it does not exist (optional: callers fall back to `list`). */
  stat?(path: string): Promise<NoteFileInfo | null>;
  exists(path: string): Promise<boolean>;
  /** Creates a new file (and its folders). Must fail rather than overwrite an existing file. */
  create(path: string, content: string): Promise<void>;
}

/**
 * Where the saved index lives between sessions: IndexedDB in Obsidian, a folder of files in the CLI.
 * It is a set of named parts (a manifest and segments of about a thousand notes each), so a save
 * writes only what changed and nothing ever holds the whole index as one string. A part is plain
 * data the structured clone algorithm copies (objects, arrays, strings, numbers, typed arrays):
 * IndexedDB stores it as it is, the CLI with v8's serializer. Names are `[a-z0-9-]`, at most 64.
 */
export interface IndexCache {
  /** The part saved under `name`, or null when there is none. Rejects when it cannot be read. */
  read(name: string): Promise<unknown>;
  /** Saves one part whole: a reader sees the old value or the new, never half. Rejects when it fails. */
  write(name: string, value: unknown): Promise<void>;
  /** The names of the saved parts. Rejects when they cannot be listed (an empty list says none are there). */
  names(): Promise<string[]>;
  /** When the part was last written (wall-clock milliseconds), or null when that is not known; left
   * out by a store that keeps no such time. A save tidying the cache leaves a part written recently. */
  writtenAt?(name: string): Promise<number | null>;
  /** Drops the named parts; names that are not there are skipped. */
  remove(names: string[]): Promise<void>;
  clear(): Promise<void>;
}

/**
 * A thread of its own for heavy, pure work, so the thread the user types on stays free: a Web
 * Worker in Obsidian, a worker thread in the CLI. Each `run` starts one worker, hands it `message`
 * and then each of `more` as it comes (plain data the structured clone algorithm copies), reading
 * `more` no faster than the worker takes it (a few messages ahead at most), and ends it when its
 * answer comes; it rejects when the worker fails, cannot start, or `signal` aborts. What
 * a worker answers is in index/worker-jobs.ts; the caller checks the answer's shape and, on any
 * failure, does the work itself.
 */
export interface Workers {
  run(message: unknown, signal: AbortSignal, more?: AsyncIterable<unknown>): Promise<unknown>;
}

/** API keys. Obsidian's secret storage in the plugin, environment variables in the CLI. */
export interface Secrets {
  get(name: SecretName): Promise<string | null>;
}

export type SecretName = "brave" | "exa" | "openai" | "anthropic" | "github" | "tavily" | "searxng";

export interface Clock {
  /**
   * Milliseconds since the epoch: the wall clock, for what is shown and written (dates, run ids).
   * A user or a time sync may set it back or forward at any moment, so durations are measured on
   * `monotonicNow` (read through `monotonicReading`), never as the difference of two of these.
   */
  now(): number;
  /**
   * Milliseconds on a monotonic clock, which setting the wall clock does not move (`performance.now()`);
   * its origin means nothing, only differences do. Optional so a clock made for a test or a replay
   * needs only `now`: such a clock is measured on its `now`. A clock that moves `now` on its own (one
   * that skips sleeps) must move this with it, or leave it out.
   */
  monotonicNow?(): number;
  /**
   * Resolves after `ms`. With a signal the sleep can be cancelled: its timer is cleared and the
   * promise rejects (with `sleepCancelled(signal)`) as soon as the signal aborts.
   *
   * `kind` says what the sleep is for (`SleepKind`), and so whether a clock that skips waits —
   * tests, replays — may skip it (`maySkip`): a pacing sleep, yes, with a signal or without; a
   * deadline, never. A sleep given a signal is a deadline unless it says `"pacing"`.
   */
  sleep(ms: number, signal?: AbortSignal, kind?: SleepKind): Promise<void>;
}

/**
 * What a sleep is for. A `deadline` is a timer that other work races (`src/deadline.ts`): skipped,
 * every race would be lost before the work had a chance. A `pacing` sleep only spaces work out (a
 * rate turn, a debounce), so nothing is lost when a test or a replay skips it; given a signal it is
 * still cancelled at once, so a stopped run holds no timer (a CLI process that would not exit).
 */
export type SleepKind = "deadline" | "pacing";

/** Whether a clock that skips waits may skip this sleep: a pacing one, never a deadline (see `Clock.sleep`). */
export function maySkip(signal: AbortSignal | undefined, kind: SleepKind | undefined): boolean {
  return (kind ?? (signal ? "deadline" : "pacing")) === "pacing";
}

/** A reading to measure durations on: the clock's monotonic one, else its wall time. */
export function monotonicReading(clock: Pick<Clock, "now" | "monotonicNow">): number {
  return clock.monotonicNow ? clock.monotonicNow() : clock.now();
}

/**
 * A stopwatch started now: the whole ms since, on the clock's monotonic reading (`performance.now()`
 * has fractions no one reads: "in 64.5765840000001 ms"). Never below 0, so a clock with wall time
 * only that is set back shows a short duration, not a negative one.
 */
export function stopwatch(clock: Pick<Clock, "now" | "monotonicNow">): () => number {
  const started = monotonicReading(clock);
  return () => Math.max(0, Math.round(monotonicReading(clock) - started));
}

/** What a cancelled sleep rejects with: the signal's own reason when it is an error. */
export function sleepCancelled(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error("The sleep was cancelled.");
}

export const systemClock: Clock = {
  now: () => Date.now(),
  // The same in Node, Electron and mobile WebViews; Node's timers run on this time too.
  monotonicNow: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(sleepCancelled(signal));
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(sleepCancelled(signal!));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      signal?.addEventListener("abort", onAbort, { once: true });
    }),
};
