// The client's requests the server has read and not yet answered, counted at the transport: a
// request in adds one; its answer (result or error) written out, or the client's cancellation of it
// (which the SDK answers with silence), takes it away. The server waits on them when the client
// closes its end of stdin, so `echo '{…}' | vault-research mcp` gets its answer before the server
// exits (mcp-command.ts).
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export interface OpenRequests {
  /** How many requests are read and not yet answered. */
  count(): number;
  /** Settles when no request is open (at once when none is). */
  allAnswered(): Promise<void>;
}

type Id = string | number;

/**
 * Counts on `transport` in place, as scrubbedTransport wraps it: `send` after its answer is written,
 * and `onmessage` (which the SDK sets when it connects) as `start` hands it the first message.
 */
export function countOpenRequests<T extends Transport>(transport: T): OpenRequests {
  // An id the client used twice at once is two requests, answered twice.
  const open = new Map<Id, number>();
  const waiters: (() => void)[] = [];
  const settle = (id: Id, all: boolean): void => {
    const left = all ? 0 : (open.get(id) ?? 0) - 1;
    if (left > 0) open.set(id, left);
    else open.delete(id);
    if (open.size === 0) for (const wake of waiters.splice(0)) wake();
  };

  const start = transport.start.bind(transport);
  transport.start = () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const id = requestId(message);
      if (id !== null) open.set(id, (open.get(id) ?? 0) + 1);
      const cancelled = cancelledId(message);
      if (cancelled !== null && open.has(cancelled)) settle(cancelled, true);
      deliver?.(message, extra);
    };
    return start();
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } finally {
      const id = answeredId(message);
      if (id !== null && open.has(id)) settle(id, false);
    }
  };

  return {
    count: () => [...open.values()].reduce((a, b) => a + b, 0),
    allAnswered: () => (open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}

function requestId(message: JSONRPCMessage): Id | null {
  return "method" in message && "id" in message && message.id !== undefined ? message.id : null;
}

function answeredId(message: JSONRPCMessage): Id | null {
  return !("method" in message) && "id" in message && message.id !== undefined && ("result" in message || "error" in message) ? message.id : null;
}

function cancelledId(message: JSONRPCMessage): Id | null {
  if (!("method" in message) || message.method !== "notifications/cancelled" || "id" in message) return null;
  const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof id === "string" || typeof id === "number" ? id : null;
}
