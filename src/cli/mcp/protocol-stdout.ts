// Over stdio, standard output is the protocol's channel and nothing else's. A library that prints
// there (Defuddle logs a page it could not convert with console.log — page text, which may hold
// lines that read as protocol messages) would corrupt the stream or speak to the client in the
// server's name. So the transport gets a stream of its own onto the real stdout, and every other
// write to process.stdout goes to `stray` (the server's stderr, sanitised and scrubbed) instead.
import { Writable } from "node:stream";

export interface ProtocolStdout {
  /** The one writer of stdout: give it to the transport. */
  stream: Writable;
  /** Gives stdout back as it was. */
  restore(): void;
}

type WriteDone = (error?: Error | null) => void;

export function keepStdoutForProtocol(stray: (text: string) => void, stdout: NodeJS.WriteStream = process.stdout): ProtocolStdout {
  const own = Object.getOwnPropertyDescriptor(stdout, "write");
  const protocolWrite: (chunk: string | Uint8Array, done: WriteDone) => boolean = stdout.write.bind(stdout);
  // Errors of the real stream (a client gone: EPIPE) are its own to report; this one only waits on it.
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      protocolWrite(chunk, () => done());
    },
  });
  const redirected = (chunk: string | Uint8Array, encodingOrDone?: BufferEncoding | WriteDone, done?: WriteDone): boolean => {
    stray(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const callback = typeof encodingOrDone === "function" ? encodingOrDone : done;
    if (callback) process.nextTick(callback);
    return true;
  };
  stdout.write = redirected;
  return {
    stream,
    restore: () => {
      if (own) Object.defineProperty(stdout, "write", own);
      else Reflect.deleteProperty(stdout, "write");
    },
  };
}
