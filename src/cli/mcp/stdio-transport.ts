// The server's side of stdio: messages in from stdin, a line each, read and checked once
// (protocol-stdin.ts), and out on the protocol's own stdout stream (protocol-stdout.ts). The SDK's
// StdioServerTransport is not used: it parsed every line the reader had already parsed, and its
// own buffer closed the server when a line outgrew it. Reading starts when the server starts the
// transport: until then a client's lines wait in the pipe, not in memory.
// `inputEnded` tells the server that the client closed its end of stdin: what it sent before is
// all handed on by then, and the server answers it before it closes (mcp-command.ts).
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { MAX_MESSAGE_BYTES, readMessages, type Refusal } from "./protocol-stdin";

export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Settles when the client's end of stdin has closed (or reading it failed), after its last message. */
  readonly inputEnded: Promise<void>;
  private endInput!: () => void;
  private reading: { stop(): void } | null = null;
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly warn: (text: string) => void,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {
    this.inputEnded = new Promise((resolve) => (this.endInput = resolve));
  }

  async start(): Promise<void> {
    if (this.reading) throw new Error("The stdio transport was started twice.");
    this.reading = readMessages(
      this.stdin,
      {
        message: (message) => this.onmessage?.(message),
        // Sent as any answer is (this.send: the scrubbing in front of it sees it too).
        refused: (refusal) => void this.send(refusal).catch(() => undefined),
        warn: this.warn,
        end: () => this.endInput(),
        error: (error) => {
          this.onerror?.(error);
          this.endInput();
        },
      },
      this.maxBytes,
    );
  }

  /** Resolves once the line is handed to stdout (its write callback); a write that fails rejects. */
  send(message: JSONRPCMessage | Refusal): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.stdout.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.reading?.stop();
    this.onclose?.();
  }
}
