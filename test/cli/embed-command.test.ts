// `vault-research embed`: cancel and resume (in-process, and Ctrl-C on the built binary), the
// progress line on a terminal's stderr, and its --json output checked against embed_report.v1
// (the one CLI JSON object without a golden case: it needs an embedding server).
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { embedCommand } from "../../src/cli/embed-command";
import { FileIndexCache } from "../../src/cli/file-index-cache";
import { VECTOR_FILE_NAME } from "../../src/cli/file-vector-cache";
import { embedReportSchema } from "../../src/cli/json/embed-report-json";
import { COMMANDS, runCli } from "../../src/cli/run";
import { terminalOutput } from "../../src/cli/terminal-text";
import type { Http } from "../../src/ports";
import { fakeClock } from "../support/fake-clock";
import { ensureBuiltCli } from "../support/built-cli";
import { fetchHttp, startStandInServer, type StandInServer } from "../llm/embeddings/stand-in-embedding-server";
import { stringContaining, stringMatching } from "../support/typed-matchers";

let server: StandInServer;
let tmp: string;
let vault: string;
let cache: string;

beforeAll(async () => {
  server = await startStandInServer({ dimensions: 32 });
});
afterAll(() => server.close());

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-embed-"));
  vault = path.join(tmp, "vault");
  cache = path.join(tmp, "cache");
  mkdirSync(vault);
  // 40 one-section notes: two units each (title, section), 16 notes a batch, so three batches.
  for (let i = 0; i < 40; i++) writeFileSync(path.join(vault, `Note ${String(i).padStart(2, "0")}.md`), `Note number ${i} is about topic ${i % 7}.\n`);
  server.embedCalls.length = 0;
  server.script.embedDelayMs = 0;
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const spec = () => `ollama:nomic-embed-text@${server.base}`;

function io(terminal = false) {
  const seen = { out: "", err: "" };
  const raw = { out: (t: string) => (seen.out += t), err: (t: string) => (seen.err += t), env: {}, cwd: tmp, stderrIsTerminal: terminal };
  return { seen, io: terminalOutput(raw, [], { out: false, err: false }) };
}

const embedArgs = (...more: string[]) => parseArgs(["--vault", vault, "--cache-dir", cache, "--embed", spec(), ...more], COMMANDS.embed.flags);

describe("vault-research embed", () => {
  it("stops when cancelled, keeps what was embedded, and the next run goes on from there", async () => {
    const stop = new AbortController();
    let requests = 0;
    // Cancel as the second batch's request leaves (the model's fingerprint goes first): the first batch is stored, the second abandoned.
    const http: Http = { request: (req) => (++requests === 3 && stop.abort(), fetchHttp.request(req)) };
    const first = io();
    // Stopped, not failed: the exit of a command stopped with Ctrl-C, as every command's help says.
    expect(await embedCommand(embedArgs("--json"), first.io, { http, stop: stop.signal })).toBe(130);
    const cancelled = embedReportSchema.parse(JSON.parse(first.seen.out));
    const text = io();
    // Already stopped: nothing more is embedded, and the text says how far the vectors go.
    expect(await embedCommand(embedArgs(), text.io, { http: fetchHttp, stop: stop.signal })).toBe(130);
    expect(text.seen.out).toContain("Vectors: 16 notes of 40,");
    expect(cancelled).toMatchObject({ state: "cancelled", notes_embedded: 16, notes_to_embed: 40 });
    expect(first.seen.err).toContain("Stopped: run the same command again to go on from here.");

    const second = io();
    expect(await embedCommand(embedArgs("--json"), second.io, { http: fetchHttp })).toBe(0);
    expect(embedReportSchema.parse(JSON.parse(second.seen.out))).toMatchObject({ state: "done", notes_unchanged: 16, notes_embedded: 24, notes_in_vault: 40, dimensions: 32 });
  });

  it("--json names the notes the server refused to embed, and the first one with the server's words", async () => {
    server.script.nullFor = "Note number 7 ";
    try {
      const run = io();
      expect(await embedCommand(embedArgs("--json"), run.io, { http: fetchHttp })).toBe(0);
      const report = embedReportSchema.parse(JSON.parse(run.seen.out));
      expect(report).toMatchObject({ state: "done", notes_embedded: 39, notes_refused: 1, refused: { first_note: "Note 07.md" } });
      expect(report.refused?.message).not.toBe("");
      // Nothing refused: the fields say so.
      server.script.nullFor = undefined;
      const again = io();
      expect(await embedCommand(embedArgs("--json"), again.io, { http: fetchHttp })).toBe(0);
      expect(embedReportSchema.parse(JSON.parse(again.seen.out))).toMatchObject({ notes_embedded: 1, notes_refused: 0, refused: null });
    } finally {
      server.script.nullFor = undefined;
    }
  });

  it("counts the notes whose vectors followed them to a new name, in --json and in its words", async () => {
    expect(await embedCommand(embedArgs(), io().io, { http: fetchHttp })).toBe(0);
    // A folder made and the notes moved into it: a rename keeps each note's date and size.
    mkdirSync(path.join(vault, "Archive"));
    for (const name of readdirSync(vault).filter((f) => f.endsWith(".md")).slice(0, 25)) renameSync(path.join(vault, name), path.join(vault, "Archive", name));
    server.embedCalls.length = 0;
    const json = io();
    expect(await embedCommand(embedArgs("--json"), json.io, { http: fetchHttp })).toBe(0);
    expect(embedReportSchema.parse(JSON.parse(json.seen.out))).toMatchObject({ state: "done", notes_embedded: 0, notes_unchanged: 40, notes_moved: 25, notes_to_embed: 0 });
    expect(server.embeddedTexts().filter((t) => t.includes("Note number"))).toEqual([]);
    // Moved back: the text says as much.
    for (const name of readdirSync(path.join(vault, "Archive"))) renameSync(path.join(vault, "Archive", name), path.join(vault, name));
    const text = io();
    expect(await embedCommand(embedArgs(), text.io, { http: fetchHttp })).toBe(0);
    expect(text.seen.out).toMatch(/^Embedded 0 notes; 40 already up to date \(25 renamed, their vectors moved with them\)\.\n/);
  });

  it("shows its progress on a terminal's stderr, and says what was done on stdout", async () => {
    server.script.embedDelayMs = 30;
    const run = io(true);
    expect(await embedCommand(embedArgs(), run.io, { http: fetchHttp })).toBe(0);
    expect(run.seen.err).toMatch(/Embedding notes: \d+ of 40/);
    const said = /^Embedded 40 notes\.\nVectors: 40 notes of 40, ([\d,]+) bytes in (.+) \(vectors\.bin and its parts\)\n$/.exec(run.seen.out);
    expect(said).not.toBeNull();
    // The bytes of every part, not only the root's few hundred: the root alone was once reported.
    const folder = said![2];
    const onDisk = readdirSync(folder).filter((f) => /^vectors(-[0-9a-f]{16}-\d+)?\.bin$/.test(f)).reduce((sum, f) => sum + statSync(path.join(folder, f)).size, 0);
    expect(Number(said![1].replace(/,/g, ""))).toBe(onDisk);
    expect(statSync(path.join(folder, "vectors.bin")).size).toBeLessThan(onDisk);
  });

  it("counts only the vectors the root names after embedding again with another model and back (it counted three sets of them)", async () => {
    const folder = new FileIndexCache(cache, vault).folder;
    const vectorFiles = () => new Set(readdirSync(folder).filter((f) => /^vectors(-[0-9a-f]{16}-\d+)?\.bin$/.test(f)));
    const bytesOf = (files: Iterable<string>) => [...files].reduce((sum, f) => sum + statSync(path.join(folder, f)).size, 0);
    const other = parseArgs(["--vault", vault, "--cache-dir", cache, "--embed", `ollama:all-minilm@${server.base}`], COMMANDS.embed.flags);
    expect(await embedCommand(embedArgs(), io().io, { http: fetchHttp })).toBe(0);
    expect(await embedCommand(other, io().io, { http: fetchHttp })).toBe(0);
    const before = vectorFiles();
    const json = io();
    expect(await embedCommand(embedArgs("--json"), json.io, { http: fetchHttp })).toBe(0);
    // This save wrote every part anew (the model changed back); the two earlier sets wait ten minutes for other processes.
    const named = ["vectors.bin", ...[...vectorFiles()].filter((f) => !before.has(f))];
    const kept = [...vectorFiles()].filter((f) => !named.includes(f));
    expect(kept.length).toBeGreaterThan(named.length);
    expect(embedReportSchema.parse(JSON.parse(json.seen.out)).vector_bytes).toBe(bytesOf(named));
    const text = io();
    expect(await embedCommand(embedArgs(), text.io, { http: fetchHttp })).toBe(0);
    expect(text.seen.out).toContain(
      `Vectors: 40 notes of 40, ${bytesOf(named).toLocaleString("en-US")} bytes in ${folder} (vectors.bin and its parts); ${bytesOf(kept).toLocaleString("en-US")} bytes more are earlier vectors kept for other processes, until a save ten minutes or more from now takes them away\n`,
    );
  });

  it("counts none of the old model's vectors as the new one's when a run with a new model failed: its root names none of them", async () => {
    const folder = new FileIndexCache(cache, vault).folder;
    expect(await embedCommand(embedArgs(), io().io, { http: fetchHttp })).toBe(0);
    const vectorFiles = () => readdirSync(folder).filter((f) => /^vectors(-[0-9a-f]{16}-\d+)?\.bin$/.test(f));
    const oldParts = vectorFiles().filter((f) => f !== "vectors.bin");
    server.script.embedFailure = { status: 400, body: { error: "no such model" } };
    try {
      const other = parseArgs(["--vault", vault, "--cache-dir", cache, "--embed", `ollama:all-minilm@${server.base}`], COMMANDS.embed.flags);
      const text = io();
      expect(await embedCommand(other, text.io, { http: fetchHttp })).toBe(1);
      // The failed run saved a root of its own, naming no part: the old parts only wait for other processes.
      expect(vectorFiles().sort()).toEqual([...oldParts, "vectors.bin"].sort());
      const size = (f: string) => statSync(path.join(folder, f)).size;
      const kept = oldParts.reduce((sum, f) => sum + size(f), 0);
      expect(text.seen.out).toContain(`Vectors: 0 notes of 40, ${size("vectors.bin").toLocaleString("en-US")} bytes in ${folder} (vectors.bin and its parts); ${kept.toLocaleString("en-US")} bytes more are earlier vectors kept`);
    } finally {
      delete server.script.embedFailure;
    }
  });

  it("keeps printing its progress lines every 2 s when the wall clock is set back an hour (they stopped for the hour)", async () => {
    const clock = fakeClock();
    const seen = { err: "" };
    const raw = { out: () => undefined, err: (t: string) => (seen.err += t), env: {}, cwd: tmp, stderrIsTerminal: true, clock };
    let calls = 0;
    // Each call to the server takes 2.5 s; the wall clock goes back an hour during the first batch.
    const http: Http = {
      request: async (req) => {
        clock.advance(2_500);
        if (++calls === 2) clock.set(clock.now() - 3_600_000);
        return fetchHttp.request(req);
      },
    };
    expect(await embedCommand(embedArgs(), terminalOutput(raw, []), { http })).toBe(0);
    expect(seen.err.match(/^Embedding notes: .*$/gm)?.map((line) => line.slice(0, 25))).toEqual(["Embedding notes: 0 of 40", "Embedding notes: 16 of 40", "Embedding notes: 32 of 40", "Embedding notes: 40 of 40"]);
  });

  it("prints nothing of its progress with --quiet, but still says what leaves the device", async () => {
    const run = io(true);
    expect(await embedCommand(embedArgs("--quiet"), run.io, { http: fetchHttp })).toBe(0);
    expect(run.seen.err).not.toContain("Embedding notes:");
    expect(run.seen.err).toContain("Embedding sends the text of every note");
  });

  it("fails, sending nothing, when a folder stands where the vectors go, and leaves no temporary file", async () => {
    const vectorFile = path.join(new FileIndexCache(cache, vault).folder, VECTOR_FILE_NAME);
    mkdirSync(vectorFile, { recursive: true });
    const json = io();
    expect(await embedCommand(embedArgs("--json"), json.io, { http: fetchHttp })).toBe(1);
    expect(embedReportSchema.parse(JSON.parse(json.seen.out))).toMatchObject({ state: "failed", notes_embedded: 0, vector_bytes: 0, resets: [], error: { kind: "not_saved", message: stringContaining("is a folder, not a file") } });
    const text = io();
    expect(await embedCommand(embedArgs(), text.io, { http: fetchHttp })).toBe(1);
    expect(text.seen.out).toBe(`Vectors: not saved in ${vectorFile}.\n`);
    // The refusal comes first, with no word of notes to be "embedded again" (they will not be).
    expect(text.seen.err).toMatch(/^error: The vectors could not be saved: .*vectors\.bin is a folder, not a file\. Nothing was sent/);
    expect(text.seen.err).not.toContain("embedded again");
    expect(json.seen.err).not.toContain("embedded again");
    expect(server.embedCalls).toEqual([]);
    expect(readdirSync(path.dirname(vectorFile)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("fails, sending nothing, when the cache folder cannot be written at all (it sent every note, then lost every vector)", async () => {
    // A path through a file: no folder can be made there, as on a read-only disk or a folder not one's own.
    writeFileSync(path.join(tmp, "a file"), "");
    const args = parseArgs(["--vault", vault, "--cache-dir", path.join(tmp, "a file", "cache"), "--embed", spec(), "--json"], COMMANDS.embed.flags);
    const json = io();
    expect(await embedCommand(args, json.io, { http: fetchHttp })).toBe(1);
    expect(embedReportSchema.parse(JSON.parse(json.seen.out))).toMatchObject({ state: "failed", notes_embedded: 0, error: { kind: "not_saved", message: stringMatching(/cannot be written \(ENOTDIR\)\. Nothing was sent/) } });
    expect(server.embedCalls).toEqual([]);
  });

  it("refuses, sending nothing and touching nothing, when a stored part cannot be read (a folder in its place): it re-sent all 40 notes", async () => {
    expect(await embedCommand(embedArgs(), io().io, { http: fetchHttp })).toBe(0);
    const folder = new FileIndexCache(cache, vault).folder;
    const part = readdirSync(folder).find((f) => /^vectors-[0-9a-f]{16}-\d+\.bin$/.test(f))!;
    rmSync(path.join(folder, part));
    mkdirSync(path.join(folder, part));
    const before = readdirSync(folder).map((f) => [f, statSync(path.join(folder, f)).mtimeMs]);
    server.embedCalls.length = 0;

    const text = io();
    expect(await embedCommand(embedArgs(), text.io, { http: fetchHttp })).toBe(1);
    expect(text.seen.err).toMatch(new RegExp(`^error: The stored vectors could not be read \\(.*${part.replace(/\./g, "\\.")} is a folder, not a file\\)\\. Nothing was sent`));
    expect(text.seen.err).not.toContain("embedded again");
    expect(text.seen.err).not.toContain("Embedding sends");
    expect(text.seen.out).toBe(`Vectors: left as they are in ${folder}: they could not be read.\n`);
    const json = io();
    expect(await embedCommand(embedArgs("--json"), json.io, { http: fetchHttp })).toBe(1);
    const report = embedReportSchema.parse(JSON.parse(json.seen.out));
    expect(report).toMatchObject({ state: "failed", notes_embedded: 0, resets: [], error: { kind: "vectors_unreadable" } });
    expect(report.error?.message).toContain(part);
    expect(server.embedCalls).toEqual([]);
    expect(readdirSync(folder).map((f) => [f, statSync(path.join(folder, f)).mtimeMs])).toEqual(before);

    // Once it can be read again, every note is found current: nothing was lost.
    rmSync(path.join(folder, part), { recursive: true });
    const after = io();
    expect(await embedCommand(embedArgs("--json"), after.io, { http: fetchHttp })).toBe(0);
    expect(embedReportSchema.parse(JSON.parse(after.seen.out)).notes_unchanged).toBeGreaterThan(0);
  });

  it("fails when the vectors it embedded could not be saved, and says they will be sent again", async () => {
    const vectorFile = path.join(new FileIndexCache(cache, vault).folder, VECTOR_FILE_NAME);
    // The file becomes a folder once the run has begun: every save of the run fails.
    const http: Http = { request: (req) => (mkdirSync(vectorFile, { recursive: true }), fetchHttp.request(req)) };
    const text = io();
    expect(await embedCommand(embedArgs(), text.io, { http })).toBe(1);
    expect(text.seen.out).toBe(`Embedded 40 notes, but their vectors could not be saved.\nVectors: not saved in ${vectorFile}: the 40 notes embedded by this run will be sent again next time.\n`);
    expect(text.seen.err).toMatch(/^error: The vectors could not be saved: /m);
    expect(readdirSync(path.dirname(vectorFile)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    rmSync(vectorFile, { recursive: true });
    const json = io();
    expect(await embedCommand(embedArgs("--json"), json.io, { http })).toBe(1);
    expect(embedReportSchema.parse(JSON.parse(json.seen.out))).toMatchObject({ state: "failed", notes_embedded: 40, error: { kind: "not_saved" } });
  });

  it("says dimensions null while no vector was ever made, after a failed run saved its empty file too", async () => {
    server.script.embedFailure = { status: 500, body: { error: "model crashed" } };
    try {
      for (let run = 0; run < 2; run++) {
        const json = io();
        expect(await embedCommand(embedArgs("--json"), json.io, { http: fetchHttp })).toBe(1);
        expect(embedReportSchema.parse(JSON.parse(json.seen.out)), `run ${run + 1}`).toMatchObject({ state: "failed", notes_embedded: 0, dimensions: null });
      }
    } finally {
      delete server.script.embedFailure;
    }
  });

  it("Ctrl-C on the built binary keeps what was embedded, and a rerun resumes", async () => {
    const cli = ensureBuiltCli();
    server.script.embedDelayMs = 150;
    const child = spawn(process.execPath, [cli, "embed", "--vault", vault, "--cache-dir", cache, "--embed", spec(), "--json"], { env: { PATH: process.env.PATH ?? "" } });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    const started = Date.now();
    // The model's fingerprint, the first batch, and the second under way.
    while (server.embedCalls.length < 3 && Date.now() - started < 10_000) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGINT");
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, err).toBe(130);
    const stopped = embedReportSchema.parse(JSON.parse(out));
    expect(stopped.state).toBe("cancelled");
    expect(stopped.notes_embedded).toBeGreaterThan(0);
    expect(stopped.notes_embedded).toBeLessThan(40);

    server.script.embedDelayMs = 0;
    let again = "";
    const code2 = await runCli(["embed", "--vault", vault, "--cache-dir", cache, "--embed", spec(), "--json"], { out: (t) => (again += t), err: () => undefined, env: {}, cwd: tmp });
    expect(code2).toBe(0);
    expect(embedReportSchema.parse(JSON.parse(again))).toMatchObject({ notes_unchanged: stopped.notes_embedded, notes_embedded: 40 - stopped.notes_embedded });
  }, 120_000);
});
