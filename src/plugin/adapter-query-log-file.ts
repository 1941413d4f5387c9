// QueryLogFile in the plugin's own data folder (`.obsidian/plugins/<id>/`), through the vault's
// disk adapter: where versions before stop 37 kept the log. That folder is inside the vault's
// folder, which file sync carries, so the log now lives in IndexedDB (indexeddb-query-log-file.ts)
// and this reads (and, once moved, removes) what an earlier version left. Two files: the current
// log and the one before it.
import { normalizePath, type DataAdapter } from "obsidian";
import type { QueryLogFile } from "../index/query-log/query-log-file";

export const QUERY_LOG_NAME = "query-log.jsonl";
export const PREVIOUS_QUERY_LOG_NAME = "query-log.1.jsonl";

export class AdapterQueryLogFile implements QueryLogFile {
  readonly currentPath: string;
  readonly previousPath: string;

  /** @param folder the plugin's data folder (its manifest `dir`). */
  constructor(
    private readonly adapter: DataAdapter,
    private readonly folder: string,
  ) {
    this.currentPath = normalizePath(`${folder}/${QUERY_LOG_NAME}`);
    this.previousPath = normalizePath(`${folder}/${PREVIOUS_QUERY_LOG_NAME}`);
  }

  async append(text: string): Promise<void> {
    if (await this.adapter.exists(this.currentPath)) {
      await this.adapter.append(this.currentPath, text);
      return;
    }
    if (!(await this.adapter.exists(this.folder))) await this.adapter.mkdir(this.folder);
    await this.adapter.write(this.currentPath, text);
  }

  async size(): Promise<number> {
    const stat = await this.adapter.stat(this.currentPath);
    return stat?.size ?? 0;
  }

  async rotate(): Promise<void> {
    if (!(await this.adapter.exists(this.currentPath))) return;
    if (await this.adapter.exists(this.previousPath)) await this.adapter.remove(this.previousPath);
    await this.adapter.rename(this.currentPath, this.previousPath);
  }

  async read(): Promise<{ previous: string; current: string }> {
    return { previous: await this.readIfThere(this.previousPath), current: await this.readIfThere(this.currentPath) };
  }

  async clear(): Promise<void> {
    for (const path of [this.previousPath, this.currentPath]) {
      if (await this.adapter.exists(path)) await this.adapter.remove(path);
    }
  }

  private async readIfThere(path: string): Promise<string> {
    return (await this.adapter.exists(path)) ? this.adapter.read(path) : "";
  }
}
