// `npm run demo`: two research runs, offline, on a fresh copy of the sample vault.
// 1. Web results from recorded sample responses in fixtures/replay/brave-demo (written by us in
//    Brave's real response format).
// 2. A question every free source fits, answered from fixtures/replay/free-sources-demo (sample
//    responses written by us in the real formats of Wikipedia, Hacker News, arXiv, GitHub and
//    Stack Exchange) — no key needed.
// The demo says so in its output; nothing goes to the network.
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
const freeQuestion = "What are sequence CRDTs, which papers and libraries implement them, and what do developers think of them?";
const freeSources = ["wikipedia", "hackernews", "arxiv", "github", "stackexchange"];

/** One research run of the built CLI; its answer goes straight to this terminal. */
function research(asked, providers, replayFolder) {
  return spawnSync(
    process.execPath,
    [
      path.join(root, "dist/cli.cjs"),
      "research",
      asked,
      "--vault",
      vault,
      "--external-search",
      "on-weak",
      ...providers.flatMap((p) => ["--external-provider", p]),
      "--replay",
      path.join(root, "fixtures/replay", replayFolder),
      "--cache-dir",
      path.join(work, "cache"),
      // The demo's copy of the vault shows the trace notes (the CLI writes into a folder only when asked).
      "--trace",
    ],
    // No keys from the environment: recordings need none, and none may leak into the demo.
    { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, BRAVE_SEARCH_API_KEY: "", GITHUB_TOKEN: "", TAVILY_API_KEY: "", EXA_API_KEY: "" } },
  );
}

console.log(`Sample vault copied to ${vault}`);
console.log(`Asking: ${question}`);
console.log(
  "External search: on-weak, from Brave. " +
    "Its answers are sample responses we wrote in Brave's real response format and replay here: not a live search, not real results.\n",
);
const first = research(question, ["brave"], "brave-demo");
if (first.status !== 0) process.exit(first.status ?? 1);

console.log("\n────────────────────────────────────────────────────────────────────────────────\n");
console.log(`Second question, without any API key: ${freeQuestion}`);
console.log(
  "External search: on-weak, from the free sources (Wikipedia, Hacker News, arXiv, GitHub, Stack Exchange). " +
    "Their answers are sample responses we wrote in each service's real format and replay here: not a live search, not real records.\n",
);
const second = research(freeQuestion, freeSources, "free-sources-demo");
if (second.status === 0) console.log(`\nOpen the trace notes in ${vault} (normal markdown files) to see both runs explained, including which sources were asked and why.`);
process.exit(second.status ?? 1);
