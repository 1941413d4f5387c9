// The built `vault-research` binary, for tests that run it as a user would (a child process).
// CI starts without dist/, and a local dist older than the sources would test yesterday's code;
// building only then (once, before the workers start: global-setup.ts) also keeps test files that
// run at once from writing the same file together.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

export const CLI_REPO_ROOT = path.resolve(__dirname, "../..");
export const BUILT_CLI = path.join(CLI_REPO_ROOT, "dist/cli.cjs");

/** The newest modification time of any file under `dir` (0 for an empty folder). */
export function newestMtime(dir: string): number {
  let latest = 0;
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    const stat = statSync(full);
    latest = Math.max(latest, stat.isDirectory() ? newestMtime(full) : stat.mtimeMs);
  }
  return latest;
}

/** Builds dist/ when the CLI is missing or older than src/, and gives the CLI's path. */
export function ensureBuiltCli(): string {
  if (!existsSync(BUILT_CLI) || statSync(BUILT_CLI).mtimeMs < newestMtime(path.join(CLI_REPO_ROOT, "src"))) {
    const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: CLI_REPO_ROOT, encoding: "utf8" });
    if (build.status !== 0) throw new Error(`npm run build failed:\n${build.stdout}\n${build.stderr}`);
  }
  return BUILT_CLI;
}
