// What reaches the SDK's stdio transport from the client, and what is answered before it: lines
// cut anywhere across chunks, a line that is not JSON, not JSON-RPC or too long.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { checkedStdin } from "../../../src/cli/mcp/protocol-stdin";

function harness(maxBytes?: number) {
  const stdin = new PassThrough();
  const answered: { id: unknown; error: { code: number; message: string } }[] = [];
  const warnings: string[] = [];
  const checked = checkedStdin(stdin, (line) => answered.push(JSON.parse(line) as (typeof answered)[number]), (text) => warnings.push(text), maxBytes);
  let passed = "";
  checked.stream.on("data", (chunk: Buffer) => void (passed += chunk.toString("utf8")));
  const ended = new Promise<void>((resolve) => checked.stream.on("end", resolve));
  return {
    send: (...chunks: (string | Buffer)[]) => chunks.forEach((c) => stdin.write(c)),
    finish: async () => {
      stdin.end();
      await ended;
      return { passed, answered, warnings };
    },
  };
}

const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

describe("checkedStdin", () => {
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
      { jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) } },
      { jsonrpc: "2.0", id: "a-1", error: { code: -32600, message: expect.any(String) } },
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.any(String) } },
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
});
