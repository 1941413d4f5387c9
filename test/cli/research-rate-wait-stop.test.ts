// Ctrl-C while a web source waits its rate turn, in the built command as a user runs it: a stand-in
// SearXNG on 127.0.0.1 answers the first query 429 with a long Retry-After, so the run's second query
// waits its turn. The run printed what it had at once, but its process stayed alive until the wait's
// timer ran out (a plain sleep nothing cleared): up to the source's whole time limit after the stop.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuiltCli } from "../support/built-cli";

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE_VAULT = path.join(ROOT, "examples/vault");
/** Far longer than this test may run: a process held by the wait's timer never exits within it. */
const RETRY_AFTER_S = 110;

let tmp: string;
let server: Server;
let asked: string[] = [];
let firstAsked: () => void = () => undefined;
/** The command under test, ended by the test if it outlived it (the old code's did, by a minute and more). */
let running: ChildProcess | undefined;

beforeAll(async () => {
  ensureBuiltCli();
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-rate-stop-"));
  server = createServer((req, res) => {
    asked.push(req.url ?? "");
    res.writeHead(429, { "content-type": "application/json", "retry-after": String(RETRY_AFTER_S) });
    res.end("{}");
    if (asked.length === 1) firstAsked();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
}, 120_000);

afterAll(async () => {
  if (running?.exitCode === null && running.signalCode === null) running.kill("SIGKILL");
  await new Promise((resolve) => server.close(resolve));
  rmSync(tmp, { recursive: true, force: true });
});

describe("the built command stopped while a source waits its rate turn", () => {
  it("exits 130 after printing what it found: the wait's timer goes with the stop, and the waiting query is never sent", async () => {
    asked = [];
    const first = new Promise<void>((resolve) => (firstAsked = resolve));
    const config = path.join(tmp, "config.json");
    const { port } = server.address() as AddressInfo;
    // The source's time limit at its largest, so the wait the 429 asks for fits in it and is waited.
    const external = { enabled: true, providers: ["searxng"], searxng: { baseUrl: `http://127.0.0.1:${port}` }, sourceTimeoutMs: 120_000, timeoutMs: 120_000 };
    writeFileSync(config, JSON.stringify({ external }));
    const child = (running = spawn(
      process.execPath,
      [path.join(ROOT, "dist/cli.cjs"), "research", "what is the latest on crdt sync", "--vault", SAMPLE_VAULT, "--external-search", "always", "--config", config, "--cache-dir", path.join(tmp, "cache"), "--json"],
      { cwd: tmp, stdio: ["ignore", "pipe", "pipe"] },
    ));
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

    await first;
    // The 429 is read and the second query starts its wait; Ctrl-C lands during it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    child.kill("SIGINT");
    const code = await exited;

    expect(code, err).toBe(130);
    const printed = JSON.parse(out) as { stop_reason: string; trace_file: string };
    expect(printed.stop_reason).toBe("cancelled");
    // The stop landed during the wait (the trace says the pause was cut short), and nothing went out after it.
    expect(readFileSync(printed.trace_file, "utf8")).toMatch(/stopped after [\d,]+ ms of the pause SearXNG asked for/);
    expect(asked).toHaveLength(1);
  });
});
