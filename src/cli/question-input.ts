// Where a command's question or query comes from: its words on the command line, or standard
// input when the words are `-` or there are none and input is piped in (`echo q | vault-research
// research --vault v`). Piped text is one question: lines are joined, surrounding space dropped.
import { UsageError, type ParsedArgs } from "./args";
import type { CliIo } from "./cli-io";

/** The words, or stdin; "" when there is neither (the caller says what was missing). */
export async function readQuestion(args: ParsedArgs, io: Pick<CliIo, "readStdin">): Promise<string> {
  const words = args.positionals;
  const fromStdin = words.length === 1 && words[0] === "-";
  if (fromStdin && !io.readStdin) throw new UsageError('A question of "-" is read from standard input, but standard input is a terminal: pipe the question in, or write it out.');
  if (fromStdin || (words.length === 0 && io.readStdin)) {
    const text = await io.readStdin!();
    return text.replace(/\s+/g, " ").trim();
  }
  return words.join(" ").trim();
}
