// The process's stdout and stderr as a command writes them, and what their failures do to the exit
// code. A reader that leaves early (`| head -1`, a consumer that exits) closes the pipe: the rest of
// that stream's output is not wanted and is dropped, but the command still ends as it would have —
// its trace kept, its files whole — and the exit code is still the run's. Ending the process at the
// first write that failed cut a run short at a warning (`2>&1 | head -1`, a stderr log on a full
// disk) and exited 0 for a run that never ran, or was about to fail.
//
// Why the run's code and not the 141 of a process killed by SIGPIPE (git, coreutils): the codes
// here are DESIGN.md's and describe the run (0 completed, 1 failed, 130 stopped); a reader that chose
// to stop reading has not made the run fail, and `set -o pipefail` still sees its own status.
// Output that could not be written for another reason (a full disk behind `> out.json`) is lost
// data: a run that would have exited 0 exits 1, said on stderr.

/** The part of a Node stream this needs (tests bring stand-ins). */
export interface WritableOutput {
  write(text: string): unknown;
  on(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
}

export interface ProcessOutput {
  out: (text: string) => void;
  err: (text: string) => void;
  /**
   * The command returned `code`: the process's exit code is set from it — and set again should the
   * output it wrote last turn out to be lost (a write's error arrives after the command returned).
   */
  commandEnded: (code: number) => void;
}

export interface ProcessOutputOptions {
  /**
   * Ends the process at once. Called only when stdout is a protocol's channel (`mcp`): the client
   * that read it is gone, and nothing is left to serve.
   */
  endNow: (code: number) => void;
  stdoutIsChannel: boolean;
  setExitCode: (code: number) => void;
}

export function processOutput(stdout: WritableOutput, stderr: WritableOutput, options: ProcessOutputOptions): ProcessOutput {
  let stdoutClosed = false;
  let stdoutLost = false;
  let stderrClosed = false;
  let returned: number | null = null;
  const exitCodeOf = (code: number): number => (stdoutLost && code === 0 ? 1 : code);

  stdout.on("error", (error) => {
    if (stdoutClosed || stdoutLost) return;
    // The reader left: nothing is lost that anyone wanted.
    if (error.code === "EPIPE") stdoutClosed = true;
    else {
      stdoutLost = true;
      writeErr(`vault-research: could not write the output (${error.code ?? error.message})\n`);
    }
    if (options.stdoutIsChannel) options.endNow(stdoutLost ? 1 : 0);
    else if (returned !== null) options.setExitCode(exitCodeOf(returned));
  });
  // Whatever went wrong with stderr (its reader gone, a full disk), the run goes on without it.
  stderr.on("error", () => {
    stderrClosed = true;
  });

  function writeErr(text: string): void {
    if (!stderrClosed) stderr.write(text);
  }

  return {
    out: (text) => {
      if (!stdoutClosed && !stdoutLost) stdout.write(text);
    },
    err: writeErr,
    commandEnded: (code) => {
      returned = code;
      options.setExitCode(exitCodeOf(code));
    },
  };
}
