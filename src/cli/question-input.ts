// Where a command's question or query comes from: its words on the command line, or standard
// input when the words are `-` or there are none and input is piped in (`echo q | vault-research
// research --vault v`). Piped text is one question: lines are joined, surrounding space dropped.
// A question that is an API key (a paste into the wrong place) is refused here, for every command
// that takes one, before the vault is opened: the research run refuses it too, but `websearch`
// would send it to every source, `compare` to the embedding server and `search` to the query log.
import { keyInQuestion, QuestionRefused } from "../research/key-in-question";
import { UsageError, type ParsedArgs } from "./args";
import type { CliIo } from "./cli-io";
import { envSecretValues } from "./env-secrets";

/** The words, or stdin; "" when there is neither (the caller says what was missing). */
export async function readQuestion(args: ParsedArgs, io: Pick<CliIo, "readStdin" | "env">): Promise<string> {
  const question = await questionText(args, io);
  if (keyInQuestion(question, envSecretValues(io.env))) throw new UsageError(new QuestionRefused().message);
  return question;
}

async function questionText(args: ParsedArgs, io: Pick<CliIo, "readStdin">): Promise<string> {
  const words = args.positionals;
  const fromStdin = words.length === 1 && words[0] === "-";
  if (fromStdin && !io.readStdin) throw new UsageError('A question of "-" is read from standard input, but standard input is a terminal: pipe the question in, or write it out.');
  if (fromStdin || (words.length === 0 && io.readStdin)) {
    const text = await io.readStdin!();
    return text.replace(/\s+/g, " ").trim();
  }
  return words.join(" ").trim();
}
