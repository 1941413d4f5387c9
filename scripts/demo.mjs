// `npm run demo`: the whole research run, offline, on a fresh copy of the sample vault.
// Web results come from recorded sample responses in fixtures/replay/brave-demo (written by us in
// Brave's real response format) — the demo says so in its output; nothing goes to the network.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const work = mkdtempSync(path.join(os.tmpdir(), "vault-research-demo-"));
const vault = path.join(work, "vault");
cpSync(path.join(root, "examples/vault"), vault, { recursive: true });
const question = process.argv[2] ?? "What changed in the latest Automerge release?";

console.log(`Sample vault copied to ${vault}`);
console.log(`Asking: ${question}`);
console.log("External search: on-weak, answered from recorded Brave sample responses (not a live search).\n");
const run = spawnSync(
  process.execPath,
  [
    path.join(root, "dist/cli.cjs"),
    "research",
    question,
    "--vault",
    vault,
    "--external-search",
    "on-weak",
    "--external-provider",
    "brave",
    "--replay",
    path.join(root, "fixtures/replay/brave-demo"),
    "--cache-dir",
    path.join(work, "cache"),
  ],
  { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, BRAVE_SEARCH_API_KEY: "" } },
);
if (run.status === 0) console.log(`\nOpen the trace note in ${vault} (a normal markdown file) to see the whole run explained.`);
process.exit(run.status ?? 1);
