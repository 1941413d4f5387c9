// Speed as a user of the CLI and an agent of the MCP server feel it, on the built command:
//   node bench/bench-mcp.mjs [NOTES]      (after `npm run build`; NOTES default 9300)
// 1. start-up: `vault-research --version`, median of 15 fresh processes;
// 2. a warm `search`: a fresh process searching a vault whose index cache is current, median of 9;
// 3. the MCP server: p50 / p95 / max of 200 vault_search calls over stdio with the SDK's client
//    (issue 17's target: p95 under 50 ms), after one warm-up call.
// The vault is the sample vault's notes copied into NOTES notes (each copy gets its own words), in
// a temporary folder; nothing leaves the machine (no web tools are called).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cli = path.join(root, "dist/cli.cjs");
const wanted = Number(process.argv[2] ?? 9300);
const work = mkdtempSync(path.join(os.tmpdir(), "vr-bench-mcp-"));
const vault = path.join(work, "vault");
const cacheDir = path.join(work, "cache");
const env = { PATH: process.env.PATH ?? "", HOME: work };

function sampleNotes(dir, rel = "") {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name.startsWith(".")) return [];
    if (statSync(full).isDirectory()) return sampleNotes(full, path.join(rel, name));
    return name.endsWith(".md") ? [{ rel: path.join(rel, name), text: readFileSync(full, "utf8") }] : [];
  });
}

function makeVault() {
  const notes = sampleNotes(path.join(root, "examples/vault"));
  for (let i = 0; i < wanted; i++) {
    const note = notes[i % notes.length];
    const copy = Math.floor(i / notes.length);
    const file = path.join(vault, `copy-${String(copy).padStart(3, "0")}`, note.rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${note.text}\n\nCopy marker copy${copy}word and batch${copy % 50}term.\n`);
  }
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

function timedRun(args) {
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, [cli, ...args], { env, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`vault-research ${args.join(" ")} exited ${run.status}: ${run.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function mcpLatencies(queries) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "mcp", "--vault", vault, "--cache-dir", cacheDir], env, stderr: "ignore" });
  const client = new Client({ name: "bench-mcp", version: "1.0.0" });
  await client.connect(transport);
  await client.callTool({ name: "vault_search", arguments: { query: "automerge sync", limit: 10 } });
  const times = [];
  for (let i = 0; i < 200; i++) {
    const started = process.hrtime.bigint();
    await client.callTool({ name: "vault_search", arguments: { query: queries[i % queries.length], limit: 10 } });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  await client.close();
  return times;
}

try {
  makeVault();
  const indexMs = timedRun(["index", "--vault", vault, "--cache-dir", cacheDir]);
  const version = Array.from({ length: 15 }, () => timedRun(["--version"]));
  const search = Array.from({ length: 9 }, () => timedRun(["search", "relay server offline peers", "--vault", vault, "--cache-dir", cacheDir, "--limit", "10"]));
  const queries = ["relay server offline peers", "why did we choose automerge over yjs", "hybrid logical clock", "encrypted backups passphrase", "copy7word", "#crdt sync", "\"local-first\"", "batch12term yjs"];
  const mcp = await mcpLatencies(queries);
  const fmt = (ms) => `${ms.toFixed(1)} ms`;
  console.log(`vault: ${wanted} notes (the sample vault's notes, copied), first index ${fmt(indexMs)}`);
  console.log(`start-up, vault-research --version: median ${fmt(median(version))} (15 runs)`);
  console.log(`warm search (fresh process, current cache): median ${fmt(median(search))} (9 runs)`);
  console.log(`MCP vault_search over stdio: p50 ${fmt(percentile(mcp, 50))}, p95 ${fmt(percentile(mcp, 95))}, max ${fmt(Math.max(...mcp))} (200 calls; target p95 < 50 ms)`);
} finally {
  if (process.env.KEEP) console.log("kept", work); else
  rmSync(work, { recursive: true, force: true });
}
