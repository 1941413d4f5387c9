// Entry point of the `vault-research` binary (bundled to dist/cli.cjs).
import { runCli } from "./run";

runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`vault-research: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
