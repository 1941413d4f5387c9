// The query log's file in the plugin's data folder, through the vault adapter's stand-in: lines
// land under the config folder (never a vault note), rotation keeps the current file and the one
// before it, and clearing removes both.
import { describe, expect, it } from "vitest";
import type { DataAdapter } from "obsidian";
import { Vault } from "../stubs/obsidian";
import { QueryLog } from "../../src/index/query-log/query-log";
import { AdapterQueryLogFile } from "../../src/plugin/adapter-query-log-file";

const FOLDER = ".obsidian/plugins/vault-research";

function logIn(vault: Vault, maxBytes?: number) {
  const file = new AdapterQueryLogFile(vault.adapter as unknown as DataAdapter, FOLDER);
  let now = 1_764_590_000_000;
  const log = new QueryLog({ file, clock: { now: () => (now += 5) }, maxBytes });
  return { file, log };
}

const search = (query: string) => ({ query, level: 1 as const, ranLevel: 1 as const, filters: { folders: [], tags: [] }, results: ["Notes/A.md"], latencyMs: 3, surface: "search-modal" });

describe("AdapterQueryLogFile", () => {
  it("makes the data folder and appends lines there, outside the vault's notes", async () => {
    const vault = new Vault();
    const { log } = logIn(vault);
    const id = await log.recordSearch(search("tomatoes"));
    await log.recordClick(id!, "Notes/A.md", 1);
    expect(vault.hiddenFolders.has(FOLDER)).toBe(true);
    const text = vault.hiddenFiles.get(`${FOLDER}/query-log.jsonl`)!;
    expect(text.trim().split("\n").map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(["search", "click"]);
    expect(vault.getFiles()).toEqual([]);
    expect((await log.read()).lines).toHaveLength(2);
  });

  it("rotates into the previous file before the current one would pass its size, and reads both", async () => {
    const vault = new Vault();
    const { log, file } = logIn(vault, 400);
    for (let i = 0; i < 6; i++) await log.recordSearch(search(`query number ${i}`));
    expect(vault.hiddenFiles.has(file.previousPath)).toBe(true);
    expect(new TextEncoder().encode(vault.hiddenFiles.get(file.currentPath) ?? "").length).toBeLessThanOrEqual(400);
    const { lines } = await log.read();
    expect(lines.at(-1)).toMatchObject({ query: "query number 5" });
  });

  it("clears both files; reading an empty log gives no lines", async () => {
    const vault = new Vault();
    const { log, file } = logIn(vault, 400);
    for (let i = 0; i < 6; i++) await log.recordSearch(search(`query number ${i}`));
    await log.clear();
    expect(vault.hiddenFiles.has(file.currentPath)).toBe(false);
    expect(vault.hiddenFiles.has(file.previousPath)).toBe(false);
    expect((await log.read()).lines).toEqual([]);
  });
});
