// The CLI with the vault-language lane: on by default it finds a note that says the question in
// other words, and says so in the JSON; the scores shown (JSON and text) are the fused order's; a
// warm start gives the same answer from the cache (a note read again at the start, its old postings
// still listed, included); the config's index.vaultLanguage false turns it off. The built CLI learns
// it in a worker thread, and its index report says so.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run";
import { ensureBuiltCli } from "../support/built-cli";
import { laneVault } from "../support/lane-vault";

let tmp: string;
let vault: string;

function writeVault(dir: string): void {
  for (const [file, text] of Object.entries(laneVault())) {
    mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
}

async function run(args: string[], cache: string): Promise<{ out: string }> {
  let out = "";
  let err = "";
  const code = await runCli([...args, "--vault", vault, "--cache-dir", path.join(tmp, cache)], { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: tmp });
  expect(code, err).toBe(0);
  return { out };
}

async function search(config: object | null, cache: string): Promise<{ path: string; explanation: { missing_terms: string[]; vault_language?: { rank: number } } }[]> {
  const args = ["search", "pelican", "--vault", vault, "--cache-dir", path.join(tmp, cache), "--json", "--limit", "10"];
  if (config) {
    writeFileSync(path.join(tmp, `${cache}.json`), JSON.stringify(config));
    args.push("--config", `${cache}.json`);
  }
  let out = "";
  let err = "";
  const code = await runCli(args, { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: tmp });
  expect(code, err).toBe(0);
  return (JSON.parse(out) as { results: never[] }).results;
}

/** Runs "quartz violin" and "pelican" as JSON, then as text, on one cache: both show the fused order's scores, the same ones. */
async function scoresShownInOrder(): Promise<void> {
  // "quartz violin": the lane puts a note with a lower words' score above a higher one;
  // "pelican": it adds notes the words never ranked (their words' score is 0).
  for (const query of ["quartz violin", "pelican"]) {
    const { out: json } = await run(["search", query, "--json", "--limit", "10"], "cache-order");
    const results = (JSON.parse(json) as { results: { score: number; explanation: { fusion?: { score: number; words_rank: number | null; words_score: number | null } } }[] }).results;
    const scores = results.map((r) => r.score);
    expect(scores, query).toEqual([...scores].sort((a, b) => b - a));
    for (const r of results) expect(r.explanation.fusion?.score, query).toBe(r.score);
    const byWords = results.filter((r) => r.explanation.fusion?.words_rank !== null);
    const laneOnly = results.filter((r) => r.explanation.fusion?.words_rank === null);
    expect(byWords.length, query).toBeGreaterThan(0);
    for (const r of byWords) expect(r.explanation.fusion?.words_score, query).toBeGreaterThan(0);
    for (const r of laneOnly) expect(r.explanation.fusion?.words_score, query).toBeNull();
    if (query === "pelican") expect(laneOnly.length).toBeGreaterThan(0);
    // The text shows the same figures, in the same order, and no words' score of 0 for a note the words did not rank.
    const { out: text } = await run(["search", query, "--limit", "10"], "cache-order");
    const shown = [...text.matchAll(/^\d+\. .* \(fused score (\d+\.\d{4}) · (.*)\)$/gm)];
    expect(shown.map((m) => Number(m[1])), query).toEqual(scores.map((s) => Number(s.toFixed(4))));
    expect(shown.filter((m) => m[2] === "not ranked by its words").length, query).toBe(laneOnly.length);
    expect(text).not.toContain("score 0.00");
  }
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-lane-cli-"));
  vault = path.join(tmp, "vault");
  writeVault(vault);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the CLI's vault-language lane", () => {
  it("finds notes that say the question's word another way, says so, and gives the same from a warm cache", async () => {
    const cold = await search(null, "cache-on");
    const byMeaning = cold.filter((r) => r.explanation.vault_language && r.explanation.missing_terms.includes("pelican"));
    expect(byMeaning.length).toBeGreaterThan(0);
    for (const r of byMeaning) expect(r.path.startsWith("t0/")).toBe(true);
    const warm = await search(null, "cache-on");
    expect(warm.map((r) => r.path)).toEqual(cold.map((r) => r.path));
  }, 60_000);

  it("shows the scores the results are in the order of, with the words' own rank and score beside them", async () => {
    // A note dated an hour ahead is read too soon at every start (read-too-soon.ts): the first run
    // indexes it unproven, every later one reads it again and indexes it anew, its old postings left
    // listed until the engine cleans up. The JSON's run and the text's must still score alike (once,
    // when the vault was written just before the first run, they did not: t1/note 1 54.909 and 52.59).
    const dated = path.join(vault, "t1/note 5.md");
    const { atime, mtime } = statSync(dated);
    utimesSync(dated, atime, new Date(Date.now() + 3_600_000));
    try {
      await scoresShownInOrder();
    } finally {
      utimesSync(dated, atime, mtime);
    }
  }, 60_000);

  it("is off with index.vaultLanguage false in the config: words alone", async () => {
    const off = await search({ index: { vaultLanguage: false } }, "cache-off");
    expect(off.length).toBeGreaterThan(0);
    expect(off.some((r) => r.explanation.vault_language)).toBe(false);
    expect(off.every((r) => !r.explanation.missing_terms.includes("pelican"))).toBe(true);
  }, 60_000);

  it("is learned in a worker thread by the built CLI, whose index report says so, and taken from the cache the next time", () => {
    const cli = ensureBuiltCli();
    const index = (cache: string, config?: object) => {
      const args = [cli, "index", "--vault", vault, "--cache-dir", path.join(tmp, cache), "--json"];
      if (config) {
        writeFileSync(path.join(tmp, `${cache}.json`), JSON.stringify(config));
        args.push("--config", path.join(tmp, `${cache}.json`));
      }
      return (JSON.parse(execFileSync(process.execPath, args, { cwd: tmp, encoding: "utf8" })) as { vault_language: unknown }).vault_language;
    };
    expect(index("cache-built")).toEqual({ state: "ready", learned_in: "worker" });
    expect(index("cache-built")).toEqual({ state: "ready", learned_in: null });
    expect(index("cache-built-off", { index: { vaultLanguage: false } })).toEqual({ state: "off", learned_in: null });
  }, 120_000);
});
