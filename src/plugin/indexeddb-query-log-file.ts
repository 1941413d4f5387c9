// QueryLogFile in this device's IndexedDB (a database of its own per vault, as the index cache and
// the vectors have): the log of searches and questions stays on this device, as the README says.
// Until stop 37 it was a file in the plugin's folder, `.obsidian/plugins/vault-research/`, which
// is inside the vault's folder: iCloud, Dropbox, Syncthing or a git backup of the vault carried
// every question with it to other places (DESIGN invariant 8: query logs live outside the vault).
// That file is moved in at the first use and then removed; it is kept if the move fails.
import type { QueryLogFile } from "../index/query-log/query-log-file";
import { IndexedDbCache } from "./indexeddb-cache";

const CURRENT = "current";
const PREVIOUS = "previous";

/** One record per "file": its text. */
interface LogRecord {
  text: string;
}

export class IndexedDbQueryLogFile implements QueryLogFile {
  private readonly db: IndexedDbCache;
  private moved: Promise<void> | null = null;
  private readonly hasIndexedDb: boolean;
  /**
   * The current log's text as `size` just read it. The query log sizes the log and then appends to
   * it (rotating between when it is full), one write after another: the step that follows uses this
   * text and drops it, so a logged search reads up to a megabyte once, not twice or three times.
   */
  private justRead: string | null = null;

  /**
   * @param vaultId the vault's stable id, as the index cache's (two vaults never share a log).
   * @param legacy the log file an earlier version kept in the plugin's folder, moved in once.
   * @param factory IndexedDB itself; tests pass a stand-in.
   */
  constructor(
    vaultId: string,
    private readonly legacy: QueryLogFile | null = null,
    factory: IDBFactory | undefined = typeof indexedDB === "undefined" ? undefined : indexedDB,
  ) {
    this.hasIndexedDb = factory !== undefined;
    this.db = new IndexedDbCache(vaultId, factory, {
      database: "vault-research-query-log",
      what: "the search query log",
      fallback: "searches are not logged",
    });
  }

  async append(text: string): Promise<void> {
    await this.ready();
    const current = this.takeJustRead() ?? (await this.textToWriteBack(CURRENT));
    await this.put(CURRENT, current + text);
  }

  async size(): Promise<number> {
    await this.ready();
    const current = await this.textToWriteBack(CURRENT);
    this.justRead = current;
    // Bytes, as a file's size: the rotation bound is in bytes.
    return new TextEncoder().encode(current).length;
  }

  async rotate(): Promise<void> {
    await this.ready();
    const current = this.takeJustRead() ?? (await this.textToWriteBack(CURRENT));
    if (current === "") return;
    await this.db.write(PREVIOUS, { text: current } satisfies LogRecord);
    await this.db.remove([CURRENT]);
    this.justRead = "";
  }

  async read(): Promise<{ previous: string; current: string }> {
    await this.ready();
    return { previous: await this.text(PREVIOUS), current: await this.text(CURRENT) };
  }

  async clear(): Promise<void> {
    this.justRead = null;
    await this.ready();
    // Emptied by writes, which fail aloud (the store's own clear only warns in the console): the
    // clear-log command must not say the log is gone while IndexedDB refused to remove it.
    // Without IndexedDB on this device nothing was ever kept here; one that cannot be opened now
    // (blocked by another window) may hold the log, so its failed write says it was not cleared.
    if (this.hasIndexedDb) {
      await this.db.write(PREVIOUS, { text: "" } satisfies LogRecord);
      await this.db.write(CURRENT, { text: "" } satisfies LogRecord);
      await this.db.clear();
    }
    // A file left behind by a failed move is part of the log too: cleared means gone everywhere.
    await this.legacy?.clear();
  }

  /** For the plugin's unload: see IndexedDbCache.close. */
  close(): void {
    this.db.close();
  }

  /** The text `size` read for the step that follows it, once; null when that step has had it. */
  private takeJustRead(): string | null {
    const text = this.justRead;
    this.justRead = null;
    return text;
  }

  private async text(name: string): Promise<string> {
    return textOf(await this.db.read(name));
  }

  /**
   * The text a write will keep and add to: a read that fails rejects, where `text` reads it as an
   * empty log — a log appended to after a failed read would be replaced by its one new line.
   */
  private async textToWriteBack(name: string): Promise<string> {
    if (!this.hasIndexedDb) return "";
    return textOf(await this.db.readOrFail(name));
  }

  /** A write that would keep nothing (no IndexedDB here) is a failure the log reports, not a silent loss. */
  private async put(name: string, text: string): Promise<void> {
    if (!(await this.db.available())) throw new Error("IndexedDB is not available on this device");
    await this.db.write(name, { text } satisfies LogRecord);
  }

  /** Moves the old file's lines in, once; until that is done, nothing else touches the log. */
  private ready(): Promise<void> {
    this.moved ??= this.moveLegacy();
    return this.moved;
  }

  private async moveLegacy(): Promise<void> {
    if (!this.legacy) return;
    try {
      const old = await this.legacy.read();
      if (old.previous === "" && old.current === "") return;
      if (!(await this.db.available())) return;
      // Lines logged here since (another window already moved a file) come after the old ones.
      const [previous, current] = [await this.textToWriteBack(PREVIOUS), await this.textToWriteBack(CURRENT)];
      await this.db.write(PREVIOUS, { text: old.previous + previous } satisfies LogRecord);
      await this.db.write(CURRENT, { text: old.current + current } satisfies LogRecord);
      await this.legacy.clear();
    } catch (error) {
      // The old file stays where it was and is tried again at the next start; nothing is lost.
      console.warn("Vault Research: could not move the search query log out of the plugin's folder.", error);
    }
  }
}

function textOf(record: unknown): string {
  return record !== null && typeof (record as Partial<LogRecord>).text === "string" ? (record as LogRecord).text : "";
}
