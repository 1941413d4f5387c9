// What a command may do with the process it runs in: print results (stdout), talk to a person
// (stderr), read the environment and standard input. Tests fill it with strings; main.ts with the
// real streams. What reaches a terminal, and in what form, is decided here and nowhere else:
// results on stdout always; progress on stderr only when stderr is a terminal and --quiet is off;
// errors on stderr always; colour only on a terminal, never with NO_COLOR or --no-color; and on a
// dumb terminal (TERM=dumb, as Emacs' shell sets it) neither colour nor a line redrawn in place.
import type { Clock } from "../ports";
import type { StyledOutput } from "./terminal-text";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** The Clock port; the system clock unless a caller (a golden test) brings its own. */
  clock?: Clock;
  /** stdout / stderr is a terminal (absent: not one, as in tests and pipes). */
  stdoutIsTerminal?: boolean;
  stderrIsTerminal?: boolean;
  /**
   * All of standard input, read once — present only when stdin is not a terminal (a pipe or a
   * file), so that `research` with no question can read it; absent on a terminal.
   */
  readStdin?: () => Promise<string>;
  /**
   * Redraws one live line in place on stderr (null clears it). Present only when stderr is a
   * terminal; the text is sanitised by the caller like everything else printed.
   */
  statusLine?: (text: string | null) => void;
}

/** How a command talks to a person, from --quiet, --no-color, NO_COLOR and the terminal. */
export interface Chattiness {
  /** Progress lines on stderr. */
  progress: boolean;
  /** A live line redrawn in place (indexing). */
  liveLine: boolean;
  /** ANSI colour on stdout. */
  colourOut: boolean;
  /** ANSI colour on stderr. */
  colourErr: boolean;
}

export function chattiness(io: Pick<CliIo, "env" | "stdoutIsTerminal" | "stderrIsTerminal" | "statusLine">, flags: { quiet: boolean; noColor: boolean }): Chattiness {
  // https://no-color.org: present and not empty.
  // A dumb terminal prints escape sequences as they are: no colour, no redrawing.
  const dumb = io.env.TERM === "dumb";
  const colourAllowed = !flags.noColor && !io.env.NO_COLOR && !dumb;
  const progress = !flags.quiet && io.stderrIsTerminal === true;
  return {
    progress,
    liveLine: progress && io.statusLine !== undefined && !dumb,
    colourOut: colourAllowed && io.stdoutIsTerminal === true,
    colourErr: colourAllowed && io.stderrIsTerminal === true,
  };
}

/** What a command prints through: the sanitised, scrubbed io of terminal-text.ts, with styles. */
export type CommandIo = CliIo & StyledOutput;
