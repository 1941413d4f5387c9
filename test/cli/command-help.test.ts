// Help is made from the command table: every flag a command takes is listed, one line each, with
// words from the one flag table — none missing, none invented.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandHelpText, FLAG_HELP, overviewHelpText } from "../../src/cli/command-help";
import { COMMANDS, runCli } from "../../src/cli/run";

const SAMPLE_VAULT = path.resolve(__dirname, "../../examples/vault");

async function cli(argv: string[], cwd: string): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(argv, { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd });
  return { code, out, err };
}

/** The words of one flag's help line for a command. */
function helpLine(command: string, flag: string): string {
  const line = commandHelpText(command, COMMANDS[command]).split("\n").find((l) => l.trimStart().startsWith(`--${flag} `));
  if (!line) throw new Error(`${command} --help has no --${flag}`);
  return line;
}

describe("command help", () => {
  it("has words for every flag of every command", () => {
    const missing = Object.entries(COMMANDS).flatMap(([name, c]) => Object.entries(c.flags).filter(([flag, spec]) => !spec.about && !FLAG_HELP[flag]).map(([flag]) => `${name} --${flag}`));
    expect(missing).toEqual([]);
  });

  it("lists each flag of a command on a line of its own, and nothing else as a flag", () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      const text = commandHelpText(name, command);
      const listed = text.split("\n").filter((l) => /^ {2}--/.test(l)).map((l) => l.trim().split(/\s/)[0].slice(2));
      expect(listed, name).toEqual(Object.keys(command.flags));
      expect(text.startsWith(`Usage: vault-research ${command.usage}\n`), name).toBe(true);
    }
  });

  it("each usage line names every flag its command takes but the common ones, or says [options]", () => {
    const common = new Set(["vault", "config", "cache-dir", "json", "quiet", "no-color", "help"]);
    const unnamed = Object.entries(COMMANDS)
      .filter(([, c]) => !c.usage.includes("[options]"))
      .flatMap(([name, c]) => Object.keys(c.flags).filter((flag) => !common.has(flag) && !c.usage.includes(`--${flag}`)).map((flag) => `${name} --${flag}`));
    expect(unnamed).toEqual([]);
  });

  it("names each command's JSON schema on its --json line", () => {
    expect(commandHelpText("search", COMMANDS.search)).toMatch(/^ {2}--json +print one vault_search\.v1 object instead of text$/m);
    expect(commandHelpText("research", COMMANDS.research)).toContain("print one research_result.v1 object");
  });

  it("says what index lists of vaults gone from their path, and how long research and promote's kept traces are kept (neither was said)", () => {
    expect(commandHelpText("index", COMMANDS.index)).toContain("the cache folders of vaults no longer at their path (cache_folders_left_behind in --json)");
    for (const command of ["research", "promote"]) {
      expect(commandHelpText(command, COMMANDS[command]), command).toContain("each vault's newest 500 traces are kept, and those of the last 7 days up to 2,000");
    }
  });

  it("says that index exits 1 when it could not save its cache, and where --json says why", () => {
    const text = commandHelpText("index", COMMANDS.index);
    expect(text).toContain("when the cache cannot be written (a full or read-only disk) it exits 1 and\nsays why (cache_not_saved in --json)");
  });

  it("says where users read of mcp's --allow-external that a config switching the web off refuses it, and what the tools report as they run", () => {
    // The server refuses the flag under external.enabled: false (exit 2, as research --external-search is); its help did not say so.
    // Then it said "when the config sets external.enabled: false", while "false", null or 0 there refuse it as well.
    expect(helpLine("mcp", "allow-external")).toContain('refused at start (exit 2) unless the config leaves external.enabled out or writes it true (false, "false" or any other value keeps the web off)');
    expect(helpLine("mcp", "allow-external")).not.toContain("when the config sets external.enabled: false");
    const text = commandHelpText("mcp", COMMANDS.mcp);
    expect(text).toContain("research_pack sends each stage as MCP progress when the call gives a progressToken");
    expect(text).toContain("echoes its tags as the filter applied");
  });

  it("what --allow-external's help says of the config is what the command line does with it", async () => {
    // mcp refuses the flag in the same words and by the same rule as research refuses --external-search (open-vault.ts).
    const tmp = mkdtempSync(path.join(os.tmpdir(), "vr-help-enabled-"));
    try {
      // A recording no request matches: the web is reached nowhere, and the run still completes.
      const replay = mkdtempSync(path.join(tmp, "replay-"));
      writeFileSync(path.join(replay, "elsewhere.json"), JSON.stringify({ method: "GET", url: "https://example.invalid/", status: 200, headers: {}, body: "" }));
      for (const [enabled, code] of [[false, 2], ["false", 2], [null, 2], [0, 2], [true, 0]] as const) {
        const config = path.join(tmp, "config.json");
        writeFileSync(config, JSON.stringify({ external: { enabled } }));
        const run = await cli(["research", "sync", "--vault", SAMPLE_VAULT, "--cache-dir", path.join(tmp, "cache"), "--config", config, "--external-search", "always", "--replay", replay, "--retrieval-only", "--no-trace"], tmp);
        expect(run.code, `${JSON.stringify(enabled)}: ${run.err}`).toBe(code);
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("the overview shows every command's usage and what it does", () => {
    const text = overviewHelpText(COMMANDS);
    for (const [name, c] of Object.entries(COMMANDS)) {
      expect(text).toContain(`  vault-research ${c.usage}\n`);
      expect(text).toContain(`  ${name.padEnd(10)} ${c.about}\n`);
    }
    expect(text).toContain('A question or query of - (or none, with a pipe) is read from standard input.');
  });

  it("states the --limit range each command enforces", async () => {
    // compare's help said 1–200 and then refused 51.
    const tmp = mkdtempSync(path.join(os.tmpdir(), "vr-help-limit-"));
    try {
      for (const command of ["search", "compare"]) {
        const max = Number(/1–(\d+)/.exec(helpLine(command, "limit"))?.[1]);
        const run = await cli([command, "sync", "--vault", SAMPLE_VAULT, "--cache-dir", path.join(tmp, "cache"), "--limit", String(max + 1)], tmp);
        expect(run.code, command).toBe(2);
        expect(run.err, command).toContain(`--limit must be between 1 and ${max} (got ${max + 1})`);
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("says the config's settings are the defaults where the code takes them from the config", async () => {
    // The help said "1 lexical (default)", "(default 5)" and "kept in the cache folder", whatever --config set.
    const tmp = mkdtempSync(path.join(os.tmpdir(), "vr-help-defaults-"));
    try {
      const config = path.join(tmp, "config.json");
      writeFileSync(config, JSON.stringify({ search: { searchLevel: 2 } }));
      const run = await cli(["search", "sync", "--vault", SAMPLE_VAULT, "--cache-dir", path.join(tmp, "cache"), "--config", config, "--limit", "1"], tmp);
      expect(run.out).toContain("level 2 (hybrid) was asked");
      for (const command of ["search", "research"]) expect(helpLine(command, "level"), command).toMatch(/default: the config's, else 1\b/);
      for (const command of ["research", "websearch"]) expect(helpLine(command, "external-count"), command).toMatch(/default: the config's external\.count, else 5\b/);
      expect(helpLine("research", "trace")).toContain("unless the config sets notes.writeTraceNotes");
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
