// The server's stdio transport over stand-in streams: what it hands the SDK, when it says the
// client's input ended, and that a line it refuses is answered through the same scrubbed exit as
// every other message.
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { scrubbedTransport } from "../../../src/cli/mcp/scrubbed-transport";
import { StdioLineTransport } from "../../../src/cli/mcp/stdio-transport";

const KEY = "BSA-stdio-transport-Xq84Lm20Zr";

function harness() {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let written = "";
  stdout.on("data", (chunk: Buffer) => void (written += chunk.toString("utf8")));
  const warnings: string[] = [];
  const transport = new StdioLineTransport(stdin, stdout, (text) => warnings.push(text));
  const messages: JSONRPCMessage[] = [];
  transport.onmessage = (message) => void messages.push(message);
  return { stdin, transport, messages, warnings, written: () => written };
}

const ping = (id: number | string) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("StdioLineTransport", () => {
  it("reads nothing before it is started, then hands on every line sent before the input ended", async () => {
    const h = harness();
    h.stdin.end(`${ping(1)}\n${ping("two")}\n`);
    await tick();
    expect(h.messages).toEqual([]);
    await h.transport.start();
    await h.transport.inputEnded;
    expect(h.messages.map((m) => ("id" in m ? m.id : null))).toEqual([1, "two"]);
  });

  it("answers a line it cannot read through the scrubbing every answer passes: a key sent as its id does not come back", async () => {
    const h = harness();
    scrubbedTransport(h.transport, [KEY]);
    await h.transport.start();
    h.stdin.end(`{"jsonrpc":"2.0","id":"${KEY}","method":5}\n`);
    await h.transport.inputEnded;
    await tick();
    const answer = JSON.parse(h.written()) as { id: string; error: { code: number } };
    expect(answer.error.code).toBe(-32600);
    expect(h.written()).not.toContain(KEY);
    expect(h.warnings).toHaveLength(1);
  });

  it("writes each message as one line, and nothing once closed", async () => {
    const h = harness();
    await h.transport.start();
    await h.transport.send({ jsonrpc: "2.0", id: 1, result: {} });
    await h.transport.close();
    await h.transport.send({ jsonrpc: "2.0", id: 2, result: {} });
    expect(h.written()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
  });
});
