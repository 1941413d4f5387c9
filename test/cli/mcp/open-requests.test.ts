// The requests read and not yet answered, counted at the transport: what the server waits on when
// the client closes its input. Requests and answers pass the SDK's in-memory transport.
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { countOpenRequests } from "../../../src/cli/mcp/open-requests";

async function linked() {
  const [client, server] = InMemoryTransport.createLinkedPair();
  const seen: JSONRPCMessage[] = [];
  server.onmessage = (message) => void seen.push(message);
  const open = countOpenRequests(server);
  await server.start();
  await client.start();
  return { client, server, open, seen };
}

/** `allAnswered()` asked now, and whether it has settled yet. */
function waiting(open: { allAnswered(): Promise<void> }) {
  let settled = false;
  const done = open.allAnswered().then(() => void (settled = true));
  return { done, settled: () => settled };
}

const call = (id: string | number) => ({ jsonrpc: "2.0" as const, id, method: "tools/call", params: { name: "vault_search", arguments: { query: "x" } } });
const result = (id: string | number) => ({ jsonrpc: "2.0" as const, id, result: { content: [] } });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("countOpenRequests", () => {
  it("counts a request from when it is read until its answer is written, and hands every message on", async () => {
    const t = await linked();
    await t.client.send(call(1));
    await t.client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await t.client.send(call("one"));
    expect(t.seen).toHaveLength(3);
    expect(t.open.count()).toBe(2);
    const all = waiting(t.open);
    await t.server.send(result(1));
    await tick();
    expect(all.settled()).toBe(false);
    await t.server.send({ jsonrpc: "2.0", id: "one", error: { code: -32602, message: "bad" } });
    await all.done;
    expect(t.open.count()).toBe(0);
  });

  it("an id sent twice at once is two requests, and a cancelled one is no longer waited for", async () => {
    const t = await linked();
    await t.client.send(call(7));
    await t.client.send(call(7));
    await t.client.send(call(8));
    await t.server.send(result(7));
    expect(t.open.count()).toBe(2);
    const all = waiting(t.open);
    // The SDK answers a cancelled request with silence.
    await t.client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8, reason: "gave up" } });
    await tick();
    expect(all.settled()).toBe(false);
    await t.server.send(result(7));
    await all.done;
    expect(t.open.count()).toBe(0);
  });

  it("is answered at once when nothing is open, and a server's own request to the client is not counted", async () => {
    const t = await linked();
    await t.server.send({ jsonrpc: "2.0", id: 99, method: "ping" });
    await t.client.send(result(99));
    expect(t.open.count()).toBe(0);
    await waiting(t.open).done;
  });
});
