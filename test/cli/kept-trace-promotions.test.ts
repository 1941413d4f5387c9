// Promotions recorded in one kept trace at once (an agent's promote_result calls for two rows of
// one run, which the MCP server runs together): each is read, changed and written back, and none
// may be lost to the other. Reads of the trace are held at a gate the test opens, so both updates
// are under way before either has read the file: the order is the test's, not the disk's.
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import type * as fsPromises from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { keepTrace, recordPromotionInKeptTrace } from "../../src/cli/kept-trace";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { traceWith, webRow } from "../support/promote-fixtures";

/** While set, every read of a file waits for it to settle. */
const gate: { open: Promise<void> | null } = { open: null };
/** Every file written, by name, in order. */
const written: string[] = [];

vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof fsPromises>();
  const readFile = async (...args: Parameters<typeof actual.readFile>) => {
    await gate.open;
    return actual.readFile(...args);
  };
  const writeFile = (...args: Parameters<typeof actual.writeFile>) => {
    written.push(args[0] as string);
    return actual.writeFile(...args);
  };
  return { ...actual, readFile, writeFile, default: { ...actual, readFile, writeFile } };
});

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-kept-promotions-"));
});

afterEach(() => {
  gate.open = null;
  written.length = 0;
  vi.restoreAllMocks();
  rmSync(tmp, { recursive: true, force: true });
});

const ROWS = [webRow("brave", "https://example.com/one", "One", "first"), webRow("brave", "https://example.com/two", "Two", "second"), webRow("brave", "https://example.com/three", "Three", "third")];

function promotionsIn(file: string): string[] {
  const parsed = parseTraceNote(readFileSync(file, "utf8"));
  if ("error" in parsed) throw new Error(parsed.error.message);
  return (parsed.trace.promotions ?? []).map((p) => p.source_key).sort();
}

describe("promotions recorded in one kept trace at once", () => {
  it("are all kept: each update reads the trace as the one before it left it", async () => {
    const file = await keepTrace(path.join(tmp, "traces"), traceWith("What is new?", ROWS));
    let open!: () => void;
    gate.open = new Promise<void>((resolve) => (open = resolve));
    const recorded = ROWS.map((row, i) => recordPromotionInKeptTrace(file, { source_key: row.source_key, note_path: `Sources/${i}.md`, at: "2026-03-05T12:00:00.000Z" }));
    open();
    expect(await Promise.all(recorded)).toEqual([{ recorded: true }, { recorded: true }, { recorded: true }]);
    expect(promotionsIn(file)).toEqual(ROWS.map((r) => r.source_key).sort());
    // Each promotion's label line in the note too, not only the block's record.
    expect(readFileSync(file, "utf8").match(/Outside vault · Brave · promoted/g)).toHaveLength(3);
    expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it("write each under a temporary name of its own, even within one millisecond", async () => {
    const file = await keepTrace(path.join(tmp, "traces"), traceWith("What is new?", ROWS));
    vi.spyOn(Date, "now").mockReturnValue(Date.UTC(2026, 2, 5, 12, 0, 0));
    written.length = 0;
    const at = "2026-03-05T12:00:00.000Z";
    await recordPromotionInKeptTrace(file, { source_key: ROWS[0].source_key, note_path: "Sources/0.md", at });
    await recordPromotionInKeptTrace(file, { source_key: ROWS[1].source_key, note_path: "Sources/1.md", at });
    // The lock each update takes is written too; the temporary files are the trace's text.
    const temporary = written.filter((name) => name.endsWith(".tmp"));
    expect(temporary).toHaveLength(2);
    expect(new Set(temporary).size).toBe(2);
    for (const temp of temporary) expect(path.dirname(temp)).toBe(path.dirname(file));
    expect(readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it("take turns however the trace is named: through a link to its folder too", async () => {
    const file = await keepTrace(path.join(tmp, "traces"), traceWith("What is new?", ROWS));
    symlinkSync(path.dirname(file), path.join(tmp, "linked"));
    let open!: () => void;
    gate.open = new Promise<void>((resolve) => (open = resolve));
    const at = "2026-03-05T12:00:00.000Z";
    const recorded = [
      recordPromotionInKeptTrace(file, { source_key: ROWS[0].source_key, note_path: "Sources/0.md", at }),
      recordPromotionInKeptTrace(path.join(tmp, "linked", path.basename(file)), { source_key: ROWS[1].source_key, note_path: "Sources/1.md", at }),
    ];
    open();
    expect(await Promise.all(recorded)).toEqual([{ recorded: true }, { recorded: true }]);
    expect(promotionsIn(file)).toEqual([ROWS[0].source_key, ROWS[1].source_key].sort());
  });
});
