// A tools/call whose params MCP cannot read is answered here, before the SDK sees it. The SDK checks
// a request's shape before any handler of ours runs, and a call with no name, with arguments that
// are null or a list, or with no params at all got an internal error (-32603) whose message was
// zod's list of issues: an agent reads that as a broken server, not as a call it can mend. Such a
// call gets invalid params (-32602), its own id, and one sentence naming what is wrong; the check
// is the SDK's own schema, so exactly the calls it would refuse are answered, and every other
// message is handed on untouched.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/**
 * Answers malformed tools/call requests on `transport` in place, as countOpenRequests wraps it:
 * `onmessage` (which the SDK sets when it connects) as `start` hands it the first message. The
 * answer leaves through `send`, so every layer on the way out (the scrubbing) sees it.
 */
export function answerMalformedToolCalls<T extends Transport>(transport: T): T {
  const start = transport.start.bind(transport);
  transport.start = () => {
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const refused = malformedToolCall(message);
      if (refused === null) return deliver?.(message, extra);
      // As a line that could not be read is answered: a client already gone loses nothing by it.
      void transport.send({ jsonrpc: "2.0", id: refused.id, error: { code: ErrorCode.InvalidParams, message: refused.why } }).catch(() => undefined);
    };
    return start();
  };
  return transport;
}

/** The id and what is wrong of a tools/call request the SDK would refuse, or null for any other message. */
function malformedToolCall(message: JSONRPCMessage): { id: string | number; why: string } | null {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return null;
  const checked = CallToolRequestSchema.safeParse(message);
  if (checked.success) return null;
  const params = (message as { params?: unknown }).params;
  const issue = checked.error.issues[0];
  return { id: message.id, why: whatIsWrong(params) ?? `tools/call's ${["params", ...issue.path.slice(1).map(String)].join(".")} is not as MCP defines it: ${issue.message}.` };
}

/** The sentence for what agents get wrong: the params, the tool's name, the arguments; null for anything else. */
function whatIsWrong(params: unknown): string | null {
  if (!isObject(params)) return `tools/call needs params, an object with name (the tool's name) and arguments (the tool's arguments); it ${params === undefined ? "had none" : `was ${kindOf(params)}`}.`;
  if (params.name === undefined) return "tools/call needs params.name, the tool's name.";
  if (typeof params.name !== "string") return `tools/call's params.name must be the tool's name, a string; it was ${kindOf(params.name)}.`;
  if (params.arguments !== undefined && !isObject(params.arguments)) return `tools/call's params.arguments must be an object of the tool's arguments by name, or be left out; it was ${kindOf(params.arguments)}.`;
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What a value was, in words: never the value itself (an agent may have pasted anything there). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
