// `vault-research index` and `search` run in-process through runCli with captured output, over the
// sample vault (read-only) or small temporary vaults, with the index cache in a temporary folder.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { openVault } from "../../src/cli/open-vault";
import { COMMANDS, runCli, type CliIo } from "../../src/cli/run";
import { terminalOutput } from "../../src/cli/terminal-text";
import { readIndexReport, readVaultSearch } from "../support/cli-json";

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE_VAULT = path.join(ROOT, "examples/vault");

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-cli-"));
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(...argv: string[]): Promise<Run> {
  let out = "";
  let err = "";
  const io: CliIo = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    // No VAULT_RESEARCH_CACHE_DIR/XDG: every test passes --cache-dir, so nothing lands in $HOME.
    env: {},
    cwd: tmp,
  };
  const code = await runCli(argv, io);
  return { code, out, err };
}

const cacheDir = () => path.join(tmp, "cache");

function countMarkdown(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    if (entry.isDirectory()) n += countMarkdown(path.join(dir, entry.name));
    else if (entry.name.endsWith(".md")) n++;
  }
  return n;
}

describe("index", () => {
  it("builds the index on the first run and loads it from the cache on the second", async () => {
    const first = await cli("index", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--json");
    expect(first.code).toBe(0);
    expect(first.err).toBe("");
    // (The schema holds problems to a list and sync.ms to a number.)
    const report = readIndexReport(first.out);
    expect(report).toMatchObject({
      vault: SAMPLE_VAULT,
      notes: countMarkdown(SAMPLE_VAULT),
      sync: { mode: "rebuild", rebuild_reason: "no cache", added: countMarkdown(SAMPLE_VAULT), updated: 0, removed: 0 },
    });
    expect(report.cache_file.startsWith(cacheDir())).toBe(true);
    expect(existsSync(report.cache_file)).toBe(true);

    const second = readIndexReport((await cli("index", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--json")).out);
    expect(second.sync).toMatchObject({ mode: "cache", added: 0, updated: 0, removed: 0, unchanged: report.notes });
    expect(second.notes).toBe(report.notes);
  });

  it("says in words what it did", async () => {
    const { code, out } = await cli("index", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir());
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`^Indexed ${countMarkdown(SAMPLE_VAULT)} notes in \\d+ ms — built from scratch \\(no cache\\)\\.`));
    expect(out).toContain("added");
  });

  it("lists notes with problems and still indexes them", async () => {
    const vault = path.join(tmp, "vault");
    mkdirSync(vault);
    writeFileSync(path.join(vault, "Good.md"), "# Good\n\nFine.\n");
    writeFileSync(path.join(vault, "Broken.md"), "---\ntitle: never closed\n\nbody\n");
    const { code, out } = await cli("index", "--vault", vault, "--cache-dir", cacheDir(), "--json");
    expect(code).toBe(0);
    const report = readIndexReport(out);
    expect(report.notes).toBe(2);
    expect(report.problems.map((p) => [p.path, p.problem.kind])).toEqual([["Broken.md", "frontmatter"]]);
  });

  it("lists the first 20 notes with problems in words, and says how many more --json shows", async () => {
    const vault = path.join(tmp, "vault-broken");
    mkdirSync(vault);
    for (let i = 1; i <= 22; i++) writeFileSync(path.join(vault, `Broken ${String(i).padStart(2, "0")}.md`), "---\ntitle: never closed\n\nbody\n");
    const { code, out } = await cli("index", "--vault", vault, "--cache-dir", cacheDir());
    expect(code).toBe(0);
    expect(out).toContain("  22 notes with problems (indexed as text where possible):\n");
    expect(out.match(/^ {4}Broken \d\d\.md: .*never closed/gm)).toHaveLength(20);
    expect(out).toContain("    … and 2 more (see --json)\n");
  });
});

describe("search", () => {
  it("never indexes trace notes (the settings' trace folder is excluded)", async () => {
    const vault = path.join(tmp, "vault");
    mkdirSync(path.join(vault, "Research", "Traces"), { recursive: true });
    writeFileSync(path.join(vault, "Note.md"), "# Note\n\nAbout otters.\n");
    writeFileSync(path.join(vault, "Research", "Traces", "Run.md"), "# Run\n\nThe question was about otters.\n");
    const { out } = await cli("search", "otters", "--vault", vault, "--cache-dir", cacheDir(), "--json");
    expect(readVaultSearch(out).results.map((r) => r.path)).toEqual(["Note.md"]);
  });

  it("keeps terminal control sequences in a note out of the text output", async () => {
    const vault = path.join(tmp, "vault");
    mkdirSync(vault);
    writeFileSync(path.join(vault, "Clip\u0007.md"), "# Clipped \u001b[31mpage\n\nPasted text with \u001b[2J escapes and a bell\u0007 about otters.\n");
    const { code, out } = await cli("search", "otters", "--vault", vault, "--cache-dir", cacheDir());
    expect(code).toBe(0);
    expect(out).toContain("«otters»");
    expect(out).not.toMatch(new RegExp(String.raw`[\u0000-\u0008\u000b-\u001f\u007f]`));
  });

  it("warns, but still answers, when the cache cannot be written", async () => {
    const blocked = path.join(tmp, "not-a-folder");
    writeFileSync(blocked, "a file where the cache folder should be");
    const { code, out, err } = await cli("search", "automerge", "--vault", SAMPLE_VAULT, "--cache-dir", blocked, "--json");
    expect(code).toBe(0);
    expect(err).toMatch(/^warning: the index cache could not be written/);
    expect(readVaultSearch(out).results.length).toBeGreaterThan(0);
  });

  it("tells the command that the index was not saved, so that `index` can say so (it reported success and named a cache file that was not there)", async () => {
    const blocked = path.join(tmp, "not-a-folder");
    writeFileSync(blocked, "a file where the cache folder should be");
    const io = terminalOutput({ out: () => undefined, err: () => undefined, env: {}, cwd: tmp }, []);
    const notSaved = await openVault(parseArgs(["--vault", SAMPLE_VAULT, "--cache-dir", blocked], COMMANDS.index.flags), io);
    // The file in the way is named, no longer Node's "ENOTDIR: not a directory, mkdir '…/index-…'".
    expect(notSaved.cacheNotSaved).toBe(`${blocked} is a file, not a folder`);
    const saved = await openVault(parseArgs(["--vault", SAMPLE_VAULT, "--cache-dir", cacheDir()], COMMANDS.index.flags), io);
    expect(saved.cacheNotSaved).toBeNull();
  });

  it("prints results best first as JSON with path, title, score and the explanation", async () => {
    const { code, out, err } = await cli("search", "automerge yjs", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--json", "--limit", "5");
    expect(code).toBe(0);
    expect(err).toBe("");
    const body = readVaultSearch(out);
    expect(body.query).toBe("automerge yjs");
    expect(body.results.length).toBeGreaterThan(1);
    expect(body.results.length).toBeLessThanOrEqual(5);
    for (const r of body.results) {
      // (The schema holds the title to text and the score to a number.)
      expect(r.path).toMatch(/\.md$/);
      expect(existsSync(path.join(SAMPLE_VAULT, r.path))).toBe(true);
      expect(r.explanation.matched_terms.length).toBeGreaterThan(0);
      expect(Array.isArray(r.sections)).toBe(true);
    }
    const scores = body.results.map((r) => r.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(body.results[0].path).toBe("Libraries/Automerge vs Yjs.md");
  });

  it("says plainly when nothing matches", async () => {
    const { code, out } = await cli("search", "zeppelinology", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir());
    expect(code).toBe(0);
    expect(out).toBe('No notes match "zeppelinology".\n');
  });

});

describe("usage errors exit 2 with a clear message", () => {
  async function usage(argv: string[], message: string | RegExp): Promise<void> {
    const { code, out, err } = await cli(...argv);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toMatch(typeof message === "string" ? new RegExp(message.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) : message);
  }

  it("names an unknown flag and suggests the one meant", async () => {
    await usage(["search", "x", "--vault", SAMPLE_VAULT, "--limt", "3"], "vault-research search: Unknown option --limt. Did you mean --limit?");
  });

  it("refuses a bad research flag before indexing anything", async () => {
    await usage(["research", "what is automerge", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--external-search", "sometimes"], "--external-search must be one of never, on-weak, always");
    expect(existsSync(cacheDir())).toBe(false);
    await usage(["research", "what is automerge", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--model", "gpt4"], /model/i);
    expect(existsSync(cacheDir())).toBe(false);
  });

  it("asks for --vault when it is missing", async () => {
    await usage(["index", "--cache-dir", cacheDir()], "--vault DIR is required");
  });

  it("says the vault folder does not exist", async () => {
    await usage(["index", "--vault", "no-such-folder", "--cache-dir", cacheDir()], "Vault folder no-such-folder does not exist.");
  });

  it("says a folder without markdown notes is not a vault", async () => {
    const empty = path.join(tmp, "empty");
    mkdirSync(empty);
    writeFileSync(path.join(empty, "notes.txt"), "not markdown");
    await usage(["search", "x", "--vault", empty, "--cache-dir", cacheDir()], "holds no markdown notes (.md)");
  });

  it("refuses a limit that is not a number", async () => {
    await usage(["search", "x", "--vault", SAMPLE_VAULT, "--limit", "abc"], '--limit must be a whole number, not "abc".');
  });

  it("refuses a flag given twice", async () => {
    await usage(["search", "x", "--vault", SAMPLE_VAULT, "--vault", SAMPLE_VAULT], "--vault was given more than once.");
  });

  it("wants a query for search", async () => {
    await usage(["search", "--vault", SAMPLE_VAULT], "search needs a query");
  });

  it("refuses stray words after index", async () => {
    await usage(["index", "extra", "--vault", SAMPLE_VAULT], "index takes no arguments");
  });

  it("prints usage on stderr when run with no command", async () => {
    const { code, out, err } = await cli();
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toContain('vault-research search "<query>" --vault DIR');
  });

  it("prints usage on stdout and succeeds when asked for help", async () => {
    const { code, out } = await cli("--help");
    expect(code).toBe(0);
    expect(out).toContain("vault-research index --vault DIR");
    const search = await cli("search", "--help");
    expect(search.code).toBe(0);
    expect(search.out).toContain('Usage: vault-research search "<query>" --vault DIR');
    expect(search.out).toMatch(/^ {2}--limit N +how many notes to show/m);
  });

  it("refuses a limit out of range", async () => {
    await usage(["search", "x", "--vault", SAMPLE_VAULT, "--limit", "0"], "--limit must be between 1 and 200 (got 0).");
  });

  it("names an unknown command", async () => {
    await usage(["serach", "x"], 'Unknown command "serach"');
  });

  it("refuses a config file that is not JSON", async () => {
    writeFileSync(path.join(tmp, "broken.json"), "{ index: ");
    await usage(["index", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--config", "broken.json"], "Config file broken.json is not valid JSON");
  });

  it("says an empty config file is empty, and reads one saved with a byte-order mark", async () => {
    writeFileSync(path.join(tmp, "empty.json"), "");
    await usage(["index", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--config", "empty.json"], "Config file empty.json is empty.");
    // Settings a Windows editor saved: read, and obeyed (the excluded folder's notes are not indexed).
    writeFileSync(path.join(tmp, "bom.json"), '\uFEFF{"index": {"excludedFolders": ["Daily"]}}');
    const run = await cli("index", "--vault", SAMPLE_VAULT, "--cache-dir", path.join(tmp, "cache-bom"), "--config", "bom.json", "--json");
    expect([run.code, run.err]).toEqual([0, ""]);
    const plain = await cli("index", "--vault", SAMPLE_VAULT, "--cache-dir", path.join(tmp, "cache-plain"), "--json");
    expect(readIndexReport(run.out).notes).toBeLessThan(readIndexReport(plain.out).notes);
  });

  it("refuses a config file that does not exist", async () => {
    await usage(["index", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--config", "missing.json"], "Config file missing.json does not exist.");
  });

  it("says so when the vault is a file and the config a folder", async () => {
    writeFileSync(path.join(tmp, "one-note.md"), "# One note\n");
    await usage(["index", "--vault", "one-note.md", "--cache-dir", cacheDir()], "Vault folder one-note.md is a file, not a folder.");
    mkdirSync(path.join(tmp, "settings"), { recursive: true });
    await usage(["index", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--config", "settings"], "Config file settings is a folder, not a file.");
  });
});

describe("--config", () => {
  it("applies a valid config (excluded folders leave the index)", async () => {
    writeFileSync(path.join(tmp, "good.json"), JSON.stringify({ index: { excludedFolders: ["Archive"] } }));
    const { code, out, err } = await cli("index", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--config", "good.json", "--json");
    expect(code).toBe(0);
    expect(err).toBe("");
    expect(readIndexReport(out).notes).toBe(countMarkdown(SAMPLE_VAULT) - countMarkdown(path.join(SAMPLE_VAULT, "Archive")));
  });

  it("warns about an invalid field on stderr and uses its default", async () => {
    writeFileSync(path.join(tmp, "odd.json"), JSON.stringify({ index: { excludedFolders: "Archive" } }));
    const { code, out, err } = await cli("index", "--vault", SAMPLE_VAULT, "--cache-dir", cacheDir(), "--config", "odd.json", "--json");
    expect(code).toBe(0);
    expect(err).toMatch(/^warning: odd\.json: index\.excludedFolders: .*the default is used\.\n$/);
    expect(readIndexReport(out).notes).toBe(countMarkdown(SAMPLE_VAULT));
  });
});
