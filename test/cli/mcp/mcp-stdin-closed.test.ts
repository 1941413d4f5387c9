// `vault-research mcp` driven as a script or a test harness drives it: every request written at
// once, then stdin closed (`printf … | vault-research mcp`). The server answers all it read before
// it exits, and reads each message once. The built CLI runs as a child process over a copy of the
// sample vault; nothing reaches the network.
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuiltCli } from "../../support/built-cli";

const ROOT = path.resolve(__dirname, "../../..");

let cli: string;
let tmp: string;
let vault: string;

beforeAll(() => {
  cli = ensureBuiltCli();
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-stdin-"));
  vault = path.join(tmp, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
}, 120_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "script", version: "1" } } };
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
const search = (id: number, query: string) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "vault_search", arguments: { query, limit: 1 } } });

/**
 * The server given `input` on a stdin that then closes (once the answer to `closeAfter` is out, when
 * given); its answers by id, its exit code and stderr.
 */
type Answer = { id: unknown; result?: { structuredContent?: { results: { path: string }[] } }; error?: unknown };

function serveOnce(input: string | Buffer, preload: string[] = [], closeAfter?: number): Promise<{ code: number | null; answers: Map<unknown, Answer>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...preload, cli, "mcp", "--vault", vault, "--cache-dir", path.join(tmp, "cache")], {
      env: { PATH: process.env.PATH ?? "", HOME: tmp },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
      if (closeAfter !== undefined && stdout.includes(`"id":${closeAfter}}`)) child.stdin.end();
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => void (stderr += text));
    child.on("error", reject);
    child.on("close", (code) => {
      const answers = new Map(stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Answer).map((a) => [a.id, a] as const));
      resolve({ code, answers, stderr });
    });
    if (closeAfter === undefined) child.stdin.end(input);
    else child.stdin.write(input);
  });
}

const lines = (...messages: unknown[]) => messages.map((m) => `${JSON.stringify(m)}\n`).join("");

describe("vault-research mcp with stdin closed after the requests", () => {
  it("answers every request it read, then exits 0", async () => {
    const { code, answers, stderr } = await serveOnce(lines(initialize, initialized, search(2, "why did we choose Automerge over Yjs"), search(3, "automerge")));
    expect(code, stderr).toBe(0);
    expect([...answers.keys()].sort()).toEqual([1, 2, 3]);
    expect(answers.get(2)?.result?.structuredContent?.results[0].path).toBe("Libraries/Automerge vs Yjs.md");
  }, 60_000);

  it("reads a first message behind a byte-order mark, and a last one without its newline", async () => {
    const input = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines(initialize, initialized) + JSON.stringify(search(2, "automerge")))]);
    const { code, answers } = await serveOnce(input);
    expect(code).toBe(0);
    expect(answers.get(1)?.error).toBeUndefined();
    expect(answers.get(2)?.result?.structuredContent?.results).toHaveLength(1);
  }, 60_000);

  it("parses a message of megabytes once", async () => {
    // A stand-in that counts how often JSON.parse is handed text of over a megabyte.
    const counter = path.join(tmp, "count-parses.cjs");
    writeFileSync(
      counter,
      `const parse = JSON.parse;
let big = 0;
JSON.parse = function (text, ...rest) {
  if (typeof text === "string" && text.length > 1_000_000) big += 1;
  return parse.call(this, text, ...rest);
};
process.on("exit", () => process.stderr.write("big parses: " + big + "\\n"));
`,
    );
    const huge = search(2, "automerge ".repeat(200_000));
    // Stdin stays open until the answer is out: this counts parses, not what a closed input does.
    const { code, answers, stderr } = await serveOnce(lines(initialize, initialized, huge), ["--require", counter], 2);
    expect(code).toBe(0);
    expect(answers.get(2)?.result?.structuredContent?.results).toHaveLength(1);
    expect(stderr).toContain("big parses: 1\n");
  }, 60_000);
});
