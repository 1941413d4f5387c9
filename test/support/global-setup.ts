// Runs once, before any test file: builds dist/ when it is missing or older than src/, so the
// test files that run the CLI as a child process (several at once, one per worker) find it built
// and never rebuild it together, one of them overwriting the file another is starting.
import { ensureBuiltCli } from "./built-cli";

export default function setup(): void {
  ensureBuiltCli();
}
