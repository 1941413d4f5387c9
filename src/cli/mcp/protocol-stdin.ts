// What the client sends, a line at a time, before the SDK's stdio transport reads it. The SDK
// drops a line that is not JSON or not JSON-RPC without a word — a client waiting on that request
// waits for ever — and closes the whole server when one line outgrows its 10 MB buffer. Here each
// such line gets the JSON-RPC error it is owed (parse error, invalid request, too large: with the
// request's id when it can be told, else null), a warning goes to stderr, and the server serves on.
import { PassThrough, type Readable } from "node:stream";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

/** The longest line passed on: below the SDK's own buffer (10 MB), which closes the server when outgrown. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const NEWLINE = 0x0a;

type RequestId = string | number | null;

export interface CheckedStdin {
  /** The JSON-RPC messages, a line each: give it to the transport. */
  stream: Readable;
  /** Stops reading `stdin` (the server is done), so it holds the process no longer. */
  stop(): void;
}

/**
 * The lines of `stdin` that are JSON-RPC messages, as a stream for the SDK's transport. Every other
 * line is answered through `answer` (one JSON line) and told to `warn`.
 */
export function checkedStdin(stdin: Readable, answer: (line: string) => void, warn: (text: string) => void, maxBytes = MAX_MESSAGE_BYTES): CheckedStdin {
  const out = new PassThrough();
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** The start of a line too long to keep, while the rest of it is skipped. */
  let oversized: { head: string; bytes: number } | null = null;

  const refuse = (id: RequestId, code: number, message: string): void => {
    warn(`warning: ${message}\n`);
    answer(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`);
  };
  const lineEnds = (piece: Buffer): void => {
    if (oversized) {
      const bytes = oversized.bytes + piece.length;
      refuse(idAtHead(oversized.head), INVALID_REQUEST, `A message of ${bytes} bytes was not read: at most ${maxBytes} bytes are.`);
      oversized = null;
      return;
    }
    const line = Buffer.concat([...pending, piece]).toString("utf8").replace(/\r$/, "");
    pending = [];
    pendingBytes = 0;
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return refuse(null, PARSE_ERROR, "A message that is not JSON was not read.");
    }
    if (!JSONRPCMessageSchema.safeParse(value).success) return refuse(idOf(value), INVALID_REQUEST, "A message that is not a JSON-RPC 2.0 request, notification or response was not read.");
    out.write(`${line}\n`);
  };
  const lineGoesOn = (piece: Buffer): void => {
    if (oversized) {
      oversized.bytes += piece.length;
      return;
    }
    pending.push(piece);
    pendingBytes += piece.length;
    if (pendingBytes > maxBytes) {
      const whole = Buffer.concat(pending);
      oversized = { head: whole.subarray(0, 200).toString("utf8"), bytes: whole.length };
      pending = [];
      pendingBytes = 0;
    }
  };

  const onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let end = data.indexOf(NEWLINE, start); end !== -1; end = data.indexOf(NEWLINE, start)) {
      lineEnds(data.subarray(start, end));
      start = end + 1;
    }
    if (start < data.length) lineGoesOn(data.subarray(start));
  };
  const onEnd = (): void => void out.end();
  const onError = (error: Error): void => void out.destroy(error);
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.on("error", onError);
  return {
    stream: out,
    stop: () => {
      stdin.off("data", onData);
      stdin.off("end", onEnd);
      stdin.off("error", onError);
      stdin.pause();
    },
  };
}

/** The id of a message that could not be read, when it has one JSON-RPC allows. */
function idOf(value: unknown): RequestId {
  if (value === null || typeof value !== "object" || !("id" in value)) return null;
  const id = value.id;
  return typeof id === "number" || (typeof id === "string" && id.length <= 200) ? id : null;
}

/** The id of a message cut short, read from its first bytes (`{"jsonrpc":"2.0","id":7,…`). */
function idAtHead(head: string): RequestId {
  const found = /"id"\s*:\s*(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!found) return null;
  try {
    return JSON.parse(found[1]) as string | number;
  } catch {
    return null;
  }
}
