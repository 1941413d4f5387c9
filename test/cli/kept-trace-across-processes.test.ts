// Promotions recorded in one kept trace by two processes at once (a CLI `promote` and the MCP
// server's promote_result): turns within a process do not reach the other, so a lock file beside
// the trace must. Each "process" is a module instance of its own (its own turns, its own held
// files). The first is held at a gate once it has read the trace; the gate opens when the second
// has finished or has found the trace locked: the order is the test's, not the disk's.
import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import type * as fsPromises from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { traceWith, webRow } from "../support/promote-fixtures";

type KeptTraceModule = typeof import("../../src/cli/kept-trace");

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-kept-processes-"));
});

afterEach(() => {
  vi.doUnmock("node:fs/promises");
  vi.resetModules();
  rmSync(tmp, { recursive: true, force: true });
});

const ROWS = [webRow("brave", "https://example.com/one", "One", "first"), webRow("brave", "https://example.com/two", "Two", "second")];
const AT = "2026-03-05T12:00:00.000Z";

/** What a process does to the file system, as far as the test must see or hold it. */
interface FsHooks {
  /** After `file` was read, before its text is handed back. */
  afterRead?: (file: string) => Promise<void>;
  /** A lock file this process could not make, as another held it. */
  lockRefused?: () => void;
}

/** kept-trace.ts as a process of its own would load it: fresh modules, fs as `hooks` sees it. */
async function processWith(hooks: FsHooks): Promise<KeptTraceModule> {
  vi.resetModules();
  vi.doMock("node:fs/promises", async (importOriginal) => {
    const actual = await importOriginal<typeof fsPromises>();
    const readFile = async (...args: Parameters<typeof actual.readFile>) => {
      const text = await actual.readFile(...args);
      await hooks.afterRead?.(args[0] as string);
      return text;
    };
    const writeFile = async (...args: Parameters<typeof actual.writeFile>) => {
      try {
        return await actual.writeFile(...args);
      } catch (error) {
        if ((args[0] as string).endsWith("-lock") && (error as { code?: string }).code === "EEXIST") hooks.lockRefused?.();
        throw error;
      }
    };
    return { ...actual, readFile, writeFile, default: { ...actual, readFile, writeFile } };
  });
  const loaded = await import("../../src/cli/kept-trace");
  vi.doUnmock("node:fs/promises");
  return loaded;
}

function promotionsIn(file: string): string[] {
  const parsed = parseTraceNote(readFileSync(file, "utf8"));
  if ("error" in parsed) throw new Error(parsed.error.message);
  return (parsed.trace.promotions ?? []).map((p) => p.source_key).sort();
}

describe("promotions recorded in one kept trace by two processes at once", () => {
  it("are both kept: the second reads the trace only once the first has written it", async () => {
    const plain = await processWith({});
    const file = await plain.keepTrace(path.join(tmp, "traces"), traceWith("What is new?", ROWS));

    let firstRead!: () => void;
    const firstHasRead = new Promise<void>((resolve) => (firstRead = resolve));
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const first = await processWith({
      afterRead: async (read) => {
        if (read !== file) return;
        firstRead();
        await gate;
      },
    });
    let refused!: () => void;
    const secondFoundLock = new Promise<void>((resolve) => (refused = resolve));
    const second = await processWith({ lockRefused: () => refused() });

    const one = first.recordPromotionInKeptTrace(file, { source_key: ROWS[0].source_key, note_path: "Sources/0.md", at: AT });
    await firstHasRead;
    const two = second.recordPromotionInKeptTrace(file, { source_key: ROWS[1].source_key, note_path: "Sources/1.md", at: AT });
    await Promise.race([two, secondFoundLock]);
    open();

    expect(await Promise.all([one, two])).toEqual([{ recorded: true }, { recorded: true }]);
    expect(promotionsIn(file)).toEqual(ROWS.map((r) => r.source_key).sort());
    // No lock, no temporary file left behind.
    expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it("are not kept waiting by the lock of a process killed while it held it", async () => {
    const kept = await processWith({});
    const file = await kept.keepTrace(path.join(tmp, "traces"), traceWith("What is new?", ROWS));
    const lock = path.join(path.dirname(file), `.${path.basename(file)}.vault-research-lock`);
    writeFileSync(lock, "4242-killed");
    const minuteAgo = new Date(Date.now() - 60_000);
    utimesSync(lock, minuteAgo, minuteAgo);

    expect(await kept.recordPromotionInKeptTrace(file, { source_key: ROWS[0].source_key, note_path: "Sources/0.md", at: AT })).toEqual({ recorded: true });
    expect(promotionsIn(file)).toEqual([ROWS[0].source_key]);
    expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });
});
