// What a test of the whole plugin sets up around it: the manifest Obsidian would read, fake timers,
// a fresh stand-in IndexedDB, and no notices left from the test before.
import { afterEach, beforeEach, vi } from "vitest";
import { notices, type PluginManifest } from "../stubs/obsidian";
import { FakeIndexedDb } from "./fake-indexeddb";

export const testManifest: PluginManifest = { id: "vault-research", name: "Vault Research", author: "test", version: "0.0.0", minAppVersion: "1.11.4", description: "" };

/** Fake timers and a fresh IndexedDB for each test of the file, put back after it. */
export function usePluginGlobals(): void {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal("indexedDB", new FakeIndexedDb().asFactory());
    notices.length = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
}
