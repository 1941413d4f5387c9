// The query log's file adapter: JSON lines in the vault's cache folder, rotated so the log holds at
// most twice the rotation size, a missing file read as empty, cleared on request.
import { closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FileQueryLogFile, openQueryLog, PREVIOUS_QUERY_LOG_NAME, QUERY_LOG_NAME } from "../../src/cli/file-query-log";
import { QueryLog } from "../../src/index/query-log/query-log";
import { defaultSettings } from "../../src/settings";
import { hasMkfifo, makeNamedPipe, releaseNamedPipes } from "./named-pipes";

// A look at the log's place that saw a file, as one did just before a pipe was put there.
const look = vi.hoisted(() => ({ seesAFile: false }));
vi.mock(import("../../src/cli/path-kind"), async (importOriginal) => {
  const actual = await importOriginal();
  return { ...actual, whyNot: (kind, abs) => (look.seesAFile ? null : actual.whyNot(kind, abs)) };
});

let folder: string;
beforeEach(() => {
  folder = path.join(mkdtempSync(path.join(os.tmpdir(), "vr-qlog-")), "index-abc");
});
afterEach(() => rmSync(path.dirname(folder), { recursive: true, force: true }));

const search = (query: string) => ({ query, level: 1 as const, ranLevel: 1 as const, filters: { folders: [], tags: [] }, results: ["A.md", "B.md"], latencyMs: 3, surface: "cli" });

describe("FileQueryLogFile", () => {
  it("reads a log that was never written as empty, and creates its folder on the first line", async () => {
    const file = new FileQueryLogFile(folder);
    expect(await file.read()).toEqual({ previous: "", current: "" });
    expect(await file.size()).toBe(0);
    await file.append("one\n");
    expect(readFileSync(path.join(folder, QUERY_LOG_NAME), "utf8")).toBe("one\n");
  });

  it.skipIf(!hasMkfifo)("refuses a named pipe in the log's place, naming it, without waiting on it to read or to write (skipped where there is no mkfifo)", async () => {
    const file = new FileQueryLogFile(folder);
    await file.append("one\n");
    rmSync(path.join(folder, QUERY_LOG_NAME));
    makeNamedPipe(path.join(folder, QUERY_LOG_NAME));
    try {
      // A plain read, and an append's open for writing, each waited for the pipe's other end: every search held.
      await expect(file.read()).rejects.toThrow(`${path.join(folder, QUERY_LOG_NAME)} is `);
      await expect(file.append("two\n")).rejects.toThrow(`${path.join(folder, QUERY_LOG_NAME)} is `);
    } finally {
      releaseNamedPipes();
    }
  });

  it.skipIf(!hasMkfifo)("refuses a named pipe put in the log's place after a look saw a file there (skipped where there is no mkfifo)", async () => {
    const file = new FileQueryLogFile(folder);
    await file.append("one\n");
    rmSync(path.join(folder, QUERY_LOG_NAME));
    makeNamedPipe(path.join(folder, QUERY_LOG_NAME));
    look.seesAFile = true;
    const appended = file.append("two\n");
    // A reader at the other end, as any process may hold: an append that took the look's word wrote
    // into the pipe (and with none, waited for one, holding the search for ever).
    const reader = openSync(path.join(folder, QUERY_LOG_NAME), constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      await expect(appended).rejects.toThrow(`${path.join(folder, QUERY_LOG_NAME)} is not a file`);
    } finally {
      look.seesAFile = false;
      closeSync(reader);
      releaseNamedPipes();
    }
  });

  it("rotates before a line would pass the limit: two files at most, within twice the limit, every line whole", async () => {
    const log = new QueryLog({ file: new FileQueryLogFile(folder), maxBytes: 1_000 });
    for (let i = 0; i < 40; i++) await log.recordSearch(search(`query number ${i}`));
    const current = path.join(folder, QUERY_LOG_NAME);
    const previous = path.join(folder, PREVIOUS_QUERY_LOG_NAME);
    expect(existsSync(previous)).toBe(true);
    expect(statSync(current).size).toBeLessThanOrEqual(1_000);
    expect(statSync(previous).size).toBeLessThanOrEqual(1_000);
    const { lines, skipped } = await log.read();
    expect(skipped).toBe(0);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.at(-1)).toMatchObject({ type: "search", query: "query number 39" });
    // The oldest queries went with the rotation.
    expect(lines.some((l) => l.type === "search" && l.query === "query number 0")).toBe(false);
  });

  it("skips a damaged line and keeps the rest; clear removes both files", async () => {
    const log = openQueryLog(folder, defaultSettings());
    await log.recordSearch(search("first"));
    writeFileSync(path.join(folder, QUERY_LOG_NAME), `${readFileSync(path.join(folder, QUERY_LOG_NAME), "utf8")}{not json\n`);
    await log.recordSearch(search("second"));
    const read = await log.read();
    expect(read.lines.map((l) => (l.type === "search" ? l.query : ""))).toEqual(["first", "second"]);
    expect(read.skipped).toBe(1);
    await log.clear();
    expect(existsSync(path.join(folder, QUERY_LOG_NAME))).toBe(false);
  });

  // `--cache-dir` naming a file: the log's stat met ENOTDIR, and the warning said "ENOTDIR: not a
  // directory, stat '…/afile/index-…/query-log.jsonl'", unlike every other warning about that file.
  it("names a file where a folder above it should be, in the words every other refusal uses", async () => {
    const file = path.join(path.dirname(folder), "afile");
    writeFileSync(file, "not a folder");
    const inFile = new FileQueryLogFile(path.join(file, "index-abc"));
    const plainly = { code: "ENOTDIR", message: `${file} is a file, not a folder` };
    await expect(inFile.size()).rejects.toMatchObject(plainly);
    await expect(inFile.read()).rejects.toMatchObject(plainly);
    await expect(inFile.rotate()).rejects.toMatchObject(plainly);
    await expect(inFile.append("one\n")).rejects.toMatchObject(plainly);
    const log = new QueryLog({ file: inFile });
    expect(await log.recordSearch(search("where"))).toBeNull();
    expect(log.problem).toBe(`The query log could not be written: ${file} is a file, not a folder`);
  });

  it("is off when the settings say so", async () => {
    const settings = defaultSettings();
    settings.search.queryLog = false;
    const log = openQueryLog(folder, settings);
    expect(await log.recordSearch(search("nothing"))).toBeNull();
    expect(existsSync(folder)).toBe(false);
  });
});
