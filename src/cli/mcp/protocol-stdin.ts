// What the client sends, a line at a time: the one reading of the protocol's input. Each line is
// parsed and checked here, once, and handed on as the message it is (stdio-transport.ts gives it to
// the SDK as it is: the SDK's own stdio transport parsed and checked every line a second time). A
// line that is not JSON or not JSON-RPC gets the JSON-RPC error it is owed (parse error, invalid
// request, too large: with the request's id when it can be told, else null) — the SDK's transport
// dropped it without a word, and a client waiting on that request waited for ever — and a warning
// goes to stderr; the server serves on. A byte-order mark before the first line (what some clients'
// UTF-8 writers put first) is not part of the message.
import type { Readable } from "node:stream";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The longest line read: past it a client is answered that its message was too large, and the rest of that line is skipped unkept. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const NEWLINE = 0x0a;
const BYTE_ORDER_MARK = Buffer.from([0xef, 0xbb, 0xbf]);
/** Bytes kept of each end of a line too long to read: enough for the members before or after its params. */
const ENDS_KEPT = 1024;

type RequestId = string | number | null;

/** The answer to a line that was not read. JSON-RPC gives it the id null when none can be told (the SDK's types allow no null). */
export interface Refusal {
  jsonrpc: "2.0";
  id: RequestId;
  error: { code: number; message: string };
}

export interface IncomingMessages {
  /** A JSON-RPC message, parsed and checked. */
  message(message: JSONRPCMessage): void;
  /** A line that was not read, with the error its sender is owed (to be sent like any answer). */
  refused(refusal: Refusal): void;
  /** Told to a person (stderr): why a line was refused. */
  warn(text: string): void;
  /** The client's end of stdin closed: every message it sent was handed on before this. */
  end(): void;
  /** Reading stdin failed. */
  error(error: Error): void;
}

/** Reads `stdin` into messages for `to` until it ends, or until the returned `stop` is called. */
export function readMessages(stdin: Readable, to: IncomingMessages, maxBytes = MAX_MESSAGE_BYTES): { stop(): void } {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let firstBytes = true;
  /** The ends of a line too long to keep (where its id may be), while the rest of it is skipped. */
  let oversized: { head: Buffer; tail: Buffer; bytes: number } | null = null;

  const refuse = (id: RequestId, code: number, message: string): void => {
    to.warn(`warning: ${message}\n`);
    to.refused({ jsonrpc: "2.0", id, error: { code, message } });
  };
  const skip = (piece: Buffer): void => {
    if (!oversized) return;
    oversized.bytes += piece.length;
    oversized.tail = Buffer.concat([oversized.tail, piece]).subarray(-ENDS_KEPT);
  };
  const lineEnds = (piece: Buffer): void => {
    if (!oversized && pendingBytes + piece.length > maxBytes) startSkipping();
    if (oversized) {
      skip(piece);
      const { head, tail, bytes } = oversized;
      oversized = null;
      return refuse(idOfCutMessage(head.toString("utf8"), tail.toString("utf8")), INVALID_REQUEST, `A message of ${bytes} bytes was not read: at most ${maxBytes} bytes are.`);
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
    const checked = JSONRPCMessageSchema.safeParse(value);
    if (!checked.success) return refuse(idOf(value), INVALID_REQUEST, "A message that is not a JSON-RPC 2.0 request, notification or response was not read.");
    to.message(checked.data);
  };
  /** The line has outgrown the limit: its ends are kept, the rest of it is only counted. */
  const startSkipping = (): void => {
    const whole = Buffer.concat(pending);
    oversized = { head: whole.subarray(0, ENDS_KEPT), tail: whole.subarray(-ENDS_KEPT), bytes: whole.length };
    pending = [];
    pendingBytes = 0;
  };
  const lineGoesOn = (piece: Buffer): void => {
    if (oversized) return skip(piece);
    pending.push(piece);
    pendingBytes += piece.length;
    if (pendingBytes > maxBytes) startSkipping();
  };

  /** A mark split across the first chunks is held until it can be told from a message. */
  let markBytes = Buffer.alloc(0);
  const withoutMark = (data: Buffer): Buffer | null => {
    if (!firstBytes) return data;
    markBytes = Buffer.concat([markBytes, data]);
    if (markBytes.length < BYTE_ORDER_MARK.length && BYTE_ORDER_MARK.subarray(0, markBytes.length).equals(markBytes)) return null;
    firstBytes = false;
    const rest = markBytes.subarray(0, BYTE_ORDER_MARK.length).equals(BYTE_ORDER_MARK) ? markBytes.subarray(BYTE_ORDER_MARK.length) : markBytes;
    markBytes = Buffer.alloc(0);
    return rest;
  };
  const onData = (chunk: Buffer | string): void => {
    const data = withoutMark(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    if (data === null) return;
    let start = 0;
    for (let end = data.indexOf(NEWLINE, start); end !== -1; end = data.indexOf(NEWLINE, start)) {
      lineEnds(data.subarray(start, end));
      start = end + 1;
    }
    if (start < data.length) lineGoesOn(data.subarray(start));
  };
  const onEnd = (): void => {
    // A last line without its newline is still a line the client sent (`printf '%s' "$REQUEST" | …`).
    if (pending.length > 0 || oversized) lineEnds(Buffer.alloc(0));
    to.end();
  };
  const onError = (error: Error): void => to.error(error);
  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.on("error", onError);
  return {
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

/**
 * The id of a message cut short, from its two ends: among the first members of its top-level object
 * (`{"jsonrpc":"2.0","id":7,…`), else as its last one (`…,"jsonrpc":"2.0","id":7}`: the official
 * SDK's client writes it there). An "id" inside its params is not its id.
 */
function idOfCutMessage(head: string, tail: string): RequestId {
  return topLevelIdAtHead(head) ?? lastMemberId(tail.replace(/\r$/, ""));
}

const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.){0,200}")`;

/** Walks the head's top-level object, over strings and nested values, to a member named "id". */
function topLevelIdAtHead(head: string): RequestId {
  let depth = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") depth--;
    else if (c === '"') {
      const rest = head.slice(i);
      const member = depth === 1 ? new RegExp(`^"id"\\s*:\\s*${ID_VALUE}\\s*[,}]`).exec(rest) : null;
      if (member) return parsedId(member[1]);
      const text = /^"(?:[^"\\]|\\.)*"/.exec(rest);
      if (!text) return null;
      i += text[0].length - 1;
    }
  }
  return null;
}

/** The id when it is the object's last member: a nested "id" is followed by more than one brace. */
function lastMemberId(tail: string): RequestId {
  const found = new RegExp(`"id"\\s*:\\s*${ID_VALUE}\\s*\\}\\s*$`).exec(tail);
  return found ? parsedId(found[1]) : null;
}

function parsedId(text: string): RequestId {
  try {
    return JSON.parse(text) as string | number;
  } catch {
    return null;
  }
}
