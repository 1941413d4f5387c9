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
import { Promoter } from "../../src/plugin/promoter";
import type { SecretName, Secrets } from "../../src/ports";
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
