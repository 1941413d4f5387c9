// Entry point of the `vault-research` binary (bundled to dist/cli.cjs): the process's streams as a
// CliIo. Standard input is offered only when it is not a terminal (a piped question); the live
// line only when stderr is a terminal.
import { format } from "node:util";
import { envSecretValues } from "./env-secrets";
import { runCli } from "./run";
import { removeTemporaryFilesOnSignal } from "./temporary-files";
import { terminalOutput } from "./terminal-text";

/**
 * Standard input, to its end or its first MAX_STDIN_BYTES. A question is read to its first 2,000
 * characters anyway; without a cap, `yes | vault-research search …` never ended and held all it read.
 */
const MAX_STDIN_BYTES = 1024 * 1024;

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total < MAX_STDIN_BYTES) return;
      process.stdin.off("data", onData);
      process.stdin.pause();
      resolve(Buffer.concat(chunks).subarray(0, MAX_STDIN_BYTES).toString("utf8"));
    };
    process.stdin.on("data", onData);
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

/** Redraws one line in place: carriage return, the text, erase to the end of the line. */
function statusLine(text: string | null): void {
  const width = process.stderr.columns || 80;
  process.stderr.write(text === null ? "\r\u001b[2K" : `\r${text.slice(0, width - 1)}\u001b[K`);
}

const stderrIsTerminal = process.stderr.isTTY === true;

// A reader that stops early (`| head`) closes the pipe: the rest of the output is not wanted, so the
// process ends there, as other command-line tools do, rather than with an unhandled error's stack.
// Writes into the vault are whole or not at all (a temporary file renamed), so none is left half done.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && stream === process.stdout) process.stderr.write(`vault-research: could not write the output (${error.code ?? error.message})\n`);
    process.exit(error.code === "EPIPE" ? (typeof process.exitCode === "number" ? process.exitCode : 0) : 1);
  });
}

// Results reach stdout only through a command's own output. A library that prints — Defuddle logs a
// page it could not convert with console.log, page text and all — would break `--json` and pipes and
// could drive the terminal: whatever any library logs goes to stderr, sanitised and scrubbed of keys
// like every other line.
const libraryLog = terminalOutput({ out: (text) => process.stderr.write(text), err: (text) => process.stderr.write(text) }, envSecretValues(process.env));
for (const method of ["log", "info", "debug", "warn", "error", "trace"] as const) {
  Object.defineProperty(console, method, { value: (...args: unknown[]) => libraryLog.err(`${format(...args)}\n`), configurable: true, writable: true });
}

// Ctrl-C between a temporary file's write and its rename leaves nothing behind, in the vault or the cache.
removeTemporaryFilesOnSignal();

runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  stdoutIsTerminal: process.stdout.isTTY === true,
  stderrIsTerminal,
  ...(process.stdin.isTTY ? {} : { readStdin }),
  ...(stderrIsTerminal ? { statusLine } : {}),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`vault-research: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
