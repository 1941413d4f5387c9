// Entry point of the `vault-research` binary (bundled to dist/cli.cjs): the process's streams as a
// CliIo. Standard input is offered only when it is not a terminal (a piped question); the live
// line only when stderr is a terminal.
import { format } from "node:util";
import { envSecretValues } from "./env-secrets";
import { runCli } from "./run";
import { processOutput } from "./output-streams";
import { removeTemporaryFiles, removeTemporaryFilesOnSignal } from "./temporary-files";
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

// A reader that stops early (`| head`) closes its pipe: what is left for it is dropped, the command
// ends as it would have, and the exit code is still the run's (output-streams.ts). Only the MCP
// server, whose stdout is its client's channel, ends at once when that client is gone.
const output = processOutput(process.stdout, process.stderr, {
  stdoutIsChannel: process.argv[2] === "mcp",
  // The client is gone mid-write: what a promotion was writing, and its note lock, go with the process.
  endNow: (code) => {
    removeTemporaryFiles();
    process.exit(code);
  },
  setExitCode: (code) => {
    process.exitCode = code;
  },
});

/** Redraws one line in place: carriage return, the text, erase to the end of the line. */
function statusLine(text: string | null): void {
  const width = process.stderr.columns || 80;
  output.err(text === null ? "\r\u001b[2K" : `\r${text.slice(0, width - 1)}\u001b[K`);
}

const stderrIsTerminal = process.stderr.isTTY === true;

// Results reach stdout only through a command's own output. A library that prints — Defuddle logs a
// page it could not convert with console.log, page text and all — would break `--json` and pipes and
// could drive the terminal: whatever any library logs goes to stderr, sanitised and scrubbed of keys
// like every other line.
const libraryLog = terminalOutput({ out: output.err, err: output.err }, envSecretValues(process.env));
for (const method of ["log", "info", "debug", "warn", "error", "trace"] as const) {
  Object.defineProperty(console, method, { value: (...args: unknown[]) => libraryLog.err(`${format(...args)}\n`), configurable: true, writable: true });
}

// Ctrl-C between a temporary file's write and its rename leaves nothing behind, in the vault or the cache.
removeTemporaryFilesOnSignal();

runCli(process.argv.slice(2), {
  out: output.out,
  err: output.err,
  env: process.env,
  cwd: process.cwd(),
  stdoutIsTerminal: process.stdout.isTTY === true,
  stderrIsTerminal,
  ...(process.stdin.isTTY ? {} : { readStdin }),
  ...(stderrIsTerminal ? { statusLine } : {}),
}).then(
  (code) => output.commandEnded(code),
  (error: unknown) => {
    output.err(`vault-research: ${error instanceof Error ? error.message : String(error)}\n`);
    output.commandEnded(1);
  },
);
