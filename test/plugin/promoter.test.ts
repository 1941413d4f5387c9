// The plugin's promoter over the stand-in vault: a page that echoes a key the plugin holds in
// secret storage (any of them: the provider's, the model's, a token it never sent anywhere) never
// gets it into the source note, the result's message or the index; a key changed after start-up
// is scrubbed too, and a local server's placeholder (`ollama`) is not treated as a key.
import { describe, expect, it } from "vitest";
import type { Vault as ObsidianVault } from "obsidian";
import { Vault } from "../stubs/obsidian";
import { nodePageReader } from "../../src/cli/dom-parser";
import { VaultIndex } from "../../src/index/vault-index";
import { ObsidianNoteStore } from "../../src/plugin/obsidian-note-store";
import { Promoter, type NoteMetadata } from "../../src/plugin/promoter";
import type { HttpRequest, SecretName, Secrets } from "../../src/ports";
import type { ResearchResult } from "../../src/research/types";
import { defaultSettings } from "../../src/settings";
import { fixedClock, httpAnswering, traceWith, webRow } from "../support/promote-fixtures";

const BRAVE_KEY = "BSA-promoter-Hq72Lx95Wz";
const MODEL_KEY = "sk-promoter-Ns41Tc68Pe";
const TOKEN = "ghp_promoterToken0123456789";

function secretsOf(values: Partial<Record<SecretName, string>>): Secrets {
  return { get: async (name) => values[name] ?? null };
}

function echoingPage(keys: string[]) {
  return httpAnswering(async () => ({
    status: 200,
    headers: { "content-type": "text/html" },
    text: `<html><head><title>Release ${keys[0]}</title></head><body><article><h1>Release notes</h1><p>${"Automerge release text with real sentences. ".repeat(12)} Keys: ${keys.join(" ")} ${keys.map(encodeURIComponent).join(" ")}.</p></article></body></html>`,
  }));
}

async function promoteWith(values: Partial<Record<SecretName, string>>, echoed: string[]) {
  const vault = new Vault();
  const store = new ObsidianNoteStore(vault as unknown as ObsidianVault);
  const settings = defaultSettings();
  const index = new VaultIndex({ excludedFolders: [settings.notes.traceFolder], stemming: settings.index.stemming, clock: fixedClock });
  const promoter = new Promoter({
    vault: vault as unknown as ObsidianVault,
    store,
    pages: async () => ({ http: echoingPage(echoed) }),
    clock: fixedClock,
    secrets: secretsOf(values),
    settings: () => settings,
    index: () => index,
    indexReady: async () => undefined,
    readPage: nodePageReader,
  });
  const row = webRow("brave", "https://news.example.org/release", "Automerge release", "The latest Automerge release.");
  const result = await promoter.promoteRow(row, { trace: traceWith("What changed?", [row]) } as ResearchResult);
  expect(result.status).toBe("created");
  const notePath = result.status === "created" ? result.notePath : "";
  return { result, note: await store.read(notePath), notePath };
}

describe("Promoter", () => {
  it("scrubs every key in secret storage from the note, its name and the result", async () => {
    const keys = [BRAVE_KEY, MODEL_KEY, TOKEN];
    const { result, note, notePath } = await promoteWith({ brave: BRAVE_KEY, openai: MODEL_KEY, github: TOKEN }, keys);
    expect(note).toContain("[redacted]");
    for (const key of keys) {
      for (const output of [note, notePath, JSON.stringify(result)]) {
        expect(output).not.toContain(key);
        expect(output).not.toContain(encodeURIComponent(key));
      }
    }
  });
});

/**
 * Obsidian's metadata cache as the app keeps it: each note's properties, and the date and size it
 * parsed the note at (`fileCache`). `parse` takes a note in as it is now; a note changed since is
 * parsed a moment later in the app, so here only when the test says so.
 */
class StandInMetadata implements NoteMetadata {
  readonly fileCache: Record<string, { mtime: number; size: number; hash: string }> = {};
  private readonly frontmatter = new Map<string, Record<string, unknown>>();
  constructor(private readonly vault: Vault) {}
  parse(path: string, frontmatter: Record<string, unknown>): void {
    const file = this.vault.getFileByPath(path)!;
    this.fileCache[path] = { mtime: file.stat.mtime, size: file.stat.size, hash: path };
    this.frontmatter.set(path, frontmatter);
  }
  getCache(path: string) {
    const frontmatter = this.frontmatter.get(path);
    return frontmatter ? { frontmatter } : null;
  }
}

describe("Promoter and the notes the index leaves out", () => {
  const PAGE = "https://news.example.org/release";
  const ARCHIVE = 40;

  async function archiveVault() {
    const vault = new Vault();
    const metadata = new StandInMetadata(vault);
    for (let i = 0; i < ARCHIVE; i++) {
      vault.seed(`Archive/Clip ${i}.md`, `---\nsource: https://old.example.org/${i}\n---\nClipped ${i}.\n`, 1_000 + i);
      metadata.parse(`Archive/Clip ${i}.md`, { source: `https://old.example.org/${i}` });
    }
    const store = new ObsidianNoteStore(vault as unknown as ObsidianVault);
    const settings = defaultSettings();
    settings.index.excludedFolders = ["Archive"];
    const index = new VaultIndex({ excludedFolders: ["Archive", settings.notes.traceFolder], stemming: settings.index.stemming, clock: fixedClock });
    await index.sync(store, null);
    const fetched: HttpRequest[] = [];
    const promoter = new Promoter({
      vault: vault as unknown as ObsidianVault,
      store,
      metadata,
      pages: async () => ({ http: httpAnswering(async (request) => (fetched.push(request), { status: 200, headers: { "content-type": "text/html" }, text: `<html><head><title>Release</title></head><body><article><h1>Release notes</h1><p>${"Release text with real sentences. ".repeat(12)}</p></article></body></html>` })) }),
      clock: fixedClock,
      secrets: secretsOf({}),
      settings: () => settings,
      index: () => index,
      indexReady: async () => undefined,
      readPage: nodePageReader,
    });
    const reads: string[] = [];
    const read = vault.cachedRead.bind(vault);
    vault.cachedRead = async (file) => (reads.push(file.path), read(file));
    const row = webRow("brave", PAGE, "Release", "The latest release.");
    const promote = () => promoter.promoteRow(row, { trace: traceWith("What changed?", [row]) } as ResearchResult);
    return { vault, metadata, promote, reads, fetched };
  }

  it("finds the page's note in an excluded folder from the app's metadata, reading none of its notes", async () => {
    const { vault, metadata, promote, reads, fetched } = await archiveVault();
    vault.seed("Archive/Release.md", `---\nsource: ${PAGE}\n---\nClipped last year.\n`, 5_000);
    metadata.parse("Archive/Release.md", { source: PAGE });
    expect(await promote()).toMatchObject({ status: "already_in_vault", notePath: "Archive/Release.md" });
    expect(reads).toEqual([]);
    expect(fetched).toEqual([]);
  });

  it("reads a note the metadata has not caught up with yet, in either direction", async () => {
    const { vault, promote, reads } = await archiveVault();
    // Changed a moment ago to hold the page: the metadata still has its old source.
    await vault.modify(vault.getFileByPath("Archive/Clip 7.md")!, `---\nsource: ${PAGE}\n---\nNow about the release.\n`, { mtime: 9_000 });
    expect(await promote()).toMatchObject({ status: "already_in_vault", notePath: "Archive/Clip 7.md" });
    expect(reads).toEqual(["Archive/Clip 7.md"]);

    // And back: the metadata (parsed in between) says it holds the page; the note no longer does.
    const other = await archiveVault();
    other.vault.seed("Archive/Release.md", `---\nsource: ${PAGE}\n---\nClipped.\n`, 5_000);
    other.metadata.parse("Archive/Release.md", { source: PAGE });
    await other.vault.modify(other.vault.getFileByPath("Archive/Release.md")!, "---\nsource: https://elsewhere.example.org/\n---\nRepointed.\n", { mtime: 9_000 });
    expect(await other.promote()).toMatchObject({ status: "created" });
    expect(other.reads.filter((p) => p.startsWith("Archive/"))).toEqual(["Archive/Release.md"]);
  });
});
