// A tools/call whose params are not what MCP defines (no name, arguments null or a list, no params
// at all), sent over the server's own stdio transport on stand-in streams against a copy of the
// sample vault: it is answered as invalid params with a sentence an agent can act on, never as an
// internal error with zod's list of issues, and a well-formed call next to it is answered as before.
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/cli/args";
import { serveVault } from "../../../src/cli/mcp/mcp-command";
import { StdioLineTransport } from "../../../src/cli/mcp/stdio-transport";
import { COMMANDS } from "../../../src/cli/run";
import { terminalOutput } from "../../../src/cli/terminal-text";

const ROOT = path.resolve(__dirname, "../../..");

type Answer = { jsonrpc: "2.0"; id: string | number | null; result?: { content: { text: string }[]; isError?: boolean; structuredContent?: { schema: string } }; error?: { code: number; message: string } };

let tmp: string;
let vault: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-mcp-malformed-"));
  vault = path.join(tmp, "vault");
  cpSync(path.join(ROOT, "examples/vault"), vault, { recursive: true });
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

/** Serves the vault over stdio on stand-in streams, sends `requests` (one line each), and gives every answer once the input ended. */
async function answersTo(requests: unknown[]): Promise<Answer[]> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let written = "";
  stdout.on("data", (chunk: Buffer) => void (written += chunk.toString("utf8")));
  const transport = new StdioLineTransport(stdin, stdout, () => undefined);
  const io = terminalOutput({ out: () => undefined, err: () => undefined, env: { HOME: tmp }, cwd: tmp }, []);
  const args = parseArgs(["--vault", vault, "--cache-dir", path.join(tmp, "cache")], COMMANDS.mcp.flags);
  const served = serveVault(args, io, transport, { ended: transport.inputEnded });
  stdin.end(requests.map((r) => `${JSON.stringify(r)}\n`).join(""));
  expect(await served).toBe(0);
  await transport.close();
  return written
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Answer);
}

const toolCall = (id: string | number, params?: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", ...(params === undefined ? {} : { params }) });

describe("a tools/call whose params are malformed", () => {
  it("is answered invalid params (-32602) with its id and a sentence naming what is wrong, never an internal error or zod's issues", async () => {
    const answers = await answersTo([
      toolCall(1, { name: "vault_search", arguments: null }),
      toolCall(2, { name: "vault_search", arguments: ["automerge"] }),
      toolCall("three", { arguments: { query: "automerge" } }),
      toolCall(4),
      toolCall(5, { name: 7, arguments: {} }),
      toolCall(6, { name: "vault_search", arguments: { query: "automerge" }, task: "soon" }),
    ]);
    const byId = new Map(answers.map((a) => [a.id, a]));
    const expected: [string | number, RegExp][] = [
      [1, /^tools\/call's params\.arguments must be an object of the tool's arguments by name, or be left out; it was null\.$/],
      [2, /^tools\/call's params\.arguments must be an object of the tool's arguments by name, or be left out; it was a list\.$/],
      ["three", /^tools\/call needs params\.name, the tool's name\.$/],
      [4, /^tools\/call needs params, an object with name \(the tool's name\) and arguments \(the tool's arguments\); it had none\.$/],
      [5, /^tools\/call's params\.name must be the tool's name, a string; it was a number\.$/],
      [6, /^tools\/call's params\.task is not as MCP defines it: .+\.$/],
    ];
    for (const [id, sentence] of expected) {
      const answer = byId.get(id);
      expect(answer?.error?.code, String(id)).toBe(-32602);
      expect(answer?.error?.message, String(id)).toMatch(sentence);
      expect(answer?.error?.message, String(id)).not.toMatch(/invalid_type|"path"|\n/);
    }
    expect(answers).toHaveLength(expected.length);
  });

  it("leaves well-formed calls as they were: a search answers, an unknown tool is the SDK's failed call", async () => {
    const answers = await answersTo([
      toolCall(1, { name: "vault_search", arguments: null }),
      toolCall(2, { name: "vault_search", arguments: { query: "automerge", limit: 1 } }),
      toolCall(3, { name: "no_such_tool" }),
      { jsonrpc: "2.0", id: 4, method: "tools/list" },
    ]);
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(1)?.error?.code).toBe(-32602);
    expect(byId.get(2)?.result?.structuredContent?.schema).toBe("vault_search.v1");
    expect(byId.get(3)?.result?.isError).toBe(true);
    expect(byId.get(3)?.result?.content[0].text).toMatch(/no_such_tool not found/);
    expect(byId.get(4)?.result).toHaveProperty("tools");
  });
});
