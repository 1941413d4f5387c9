// What the server reads from the client, and what is answered before the SDK sees it: lines cut
// anywhere across chunks, a line that is not JSON, not JSON-RPC or too long, a byte-order mark, a
// last line without its newline.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readMessages, type Refusal } from "../../../src/cli/mcp/protocol-stdin";

function harness(maxBytes?: number) {
  const stdin = new PassThrough();
  const answered: Refusal[] = [];
  const warnings: string[] = [];
  const messages: unknown[] = [];
  let endInput!: () => void;
  const ended = new Promise<void>((resolve) => (endInput = resolve));
  readMessages(stdin, { message: (m) => messages.push(m), refused: (r) => answered.push(r), warn: (text) => warnings.push(text), end: () => endInput(), error: () => undefined }, maxBytes);
  // Each message as the line it would be: what the tests compare.
  const passedLines = () => messages.map((m) => `${JSON.stringify(m)}\n`).join("");
  return {
    send: (...chunks: (string | Buffer)[]) => chunks.forEach((c) => stdin.write(c)),
    finish: async () => {
      stdin.end();
      await ended;
      return { passed: passedLines(), messages, answered, warnings };
    },
  };
}

const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

describe("readMessages", () => {
  it("passes on JSON-RPC lines whole, however the chunks cut them (CRLF, a multi-byte character split)", async () => {
    const h = harness();
    const withAccent = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "vault_search", arguments: { query: "café" } } });
    const bytes = Buffer.from(`${ping(1)}\r\n${withAccent}\n`);
    const cut = bytes.indexOf(Buffer.from("é")) + 1; // inside the two bytes of é
    h.send(bytes.subarray(0, 5), bytes.subarray(5, cut), bytes.subarray(cut));
    const { passed, answered } = await h.finish();
    expect(passed).toBe(`${ping(1)}\n${withAccent}\n`);
    expect(answered).toEqual([]);
  });

  it("answers a line that is not JSON with a parse error (id null), one that is not JSON-RPC with invalid request and its id", async () => {
    const h = harness();
    h.send("not json at all\n", '{"jsonrpc":"2.0","id":"a-1","method":5}\n', '{"id":{"nested":true}}\n', "\n", `${ping(3)}\n`);
    const { passed, answered, warnings } = await h.finish();
    expect(answered).toEqual([
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) as string } },
      { jsonrpc: "2.0", id: "a-1", error: { code: -32600, message: expect.any(String) as string } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.any(String) as string } },
    ]);
    expect(passed).toBe(`${ping(3)}\n`);
    expect(warnings).toHaveLength(3);
  });

  it("refuses a line longer than the limit with the id its first bytes give, and reads the next line", async () => {
    const h = harness(1_000);
    const huge = JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "vault_search", arguments: { query: "x".repeat(5_000) } } });
    for (let i = 0; i < huge.length; i += 300) h.send(huge.slice(i, i + 300));
    h.send(`\n${ping(10)}\n`);
    const { passed, answered } = await h.finish();
    expect(answered).toEqual([{ jsonrpc: "2.0", id: 9, error: { code: -32600, message: `A message of ${huge.length} bytes was not read: at most 1000 bytes are.` } }]);
    expect(passed).toBe(`${ping(10)}\n`);
  });

  it("refuses a line too long with its own id where the SDK's client writes it (last), never an id inside its arguments", async () => {
    const h = harness(1_000);
    // The official client's key order: the request's own members, then jsonrpc and id.
    const sdkOrder = JSON.stringify({ method: "tools/call", params: { name: "vault_search", arguments: { id: 3, query: "x".repeat(5_000), more: { id: 4 } } }, jsonrpc: "2.0", id: 12 });
    const stringId = JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { arguments: { id: "not-mine", query: "x".repeat(5_000) } }, id: "req-13" });
    const noId = JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: { id: 5 }, text: "x".repeat(5_000) } });
    for (const line of [`${sdkOrder}\r\n`, `${stringId}\n`, `${noId}\n`]) for (let i = 0; i < line.length; i += 300) h.send(line.slice(i, i + 300));
    const { answered } = await h.finish();
    expect(answered.map((a) => a.id)).toEqual([12, "req-13", null]);
  });

  it("drops a byte-order mark before the first message, even split across chunks, and only there", async () => {
    const h = harness();
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${ping(1)}\n\ufeff${ping(2)}\n`)]);
    h.send(bytes.subarray(0, 1), bytes.subarray(1, 2), bytes.subarray(2));
    const { passed, answered } = await h.finish();
    expect(passed).toBe(`${ping(1)}\n`);
    // The mark before a later line is no mark of the stream's: that line is not JSON.
    expect(answered.map((a) => [a.id, a.error.code])).toEqual([[null, -32700]]);
  });

  it("reads a last line the client sent without its newline before the end (printf '%s' … | vault-research mcp)", async () => {
    const h = harness();
    h.send(`${ping(1)}\n${ping(2)}`);
    const { passed } = await h.finish();
    expect(passed).toBe(`${ping(1)}\n${ping(2)}\n`);
  });
});
