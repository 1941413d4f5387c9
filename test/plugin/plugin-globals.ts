// What a test of the whole plugin sets up around it: the manifest Obsidian would read, fake timers
// (digests answered within them), a fresh stand-in IndexedDB, and no notices left from the test before.
import { createHash } from "node:crypto";
import { afterEach, beforeEach, vi } from "vitest";
import { notices, type PluginManifest } from "../stubs/obsidian";
import { FakeIndexedDb } from "./fake-indexeddb";

export const testManifest: PluginManifest = { id: "vault-research", name: "Vault Research", author: "test", version: "0.0.0", minAppVersion: "1.11.4", description: "" };

/**
 * Web Crypto's digest answers from a thread of its own, in real time, which fake timers cannot move:
 * on a busy machine a save's checksums (the index parts', the vectors') were still on their way when
 * the test's fake seconds had passed. The same SHA-256, answered at once, keeps the save in fake time.
 */
export function digestsAnsweredAtOnce(): void {
  vi.spyOn(crypto.subtle, "digest").mockImplementation((algorithm: AlgorithmIdentifier, data: BufferSource) => {
    if (algorithm !== "SHA-256") throw new Error(`the test's digest knows SHA-256 only, not ${JSON.stringify(algorithm)}`);
    const bytes = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
    const digest = createHash("sha256").update(bytes).digest();
    return Promise.resolve(digest.buffer.slice(digest.byteOffset, digest.byteOffset + digest.byteLength));
  });
}

/** Fake timers and a fresh IndexedDB for each test of the file, put back after it. */
export function usePluginGlobals(): void {
  beforeEach(() => {
    vi.useFakeTimers();
    digestsAnsweredAtOnce();
    vi.stubGlobal("indexedDB", new FakeIndexedDb().asFactory());
    notices.length = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });
}
