// The habits people and agents bring to a command line: --version, help for one command, "did you
// mean", a question from a pipe, progress only where a person watches (stderr on a terminal, not
// with --quiet), a live line while indexing, and colour only on a terminal unless NO_COLOR or
// --no-color says otherwise.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { version } from "../../package.json";
import { runCli, type CliIo } from "../../src/cli/run";
import type { Clock } from "../../src/ports";
import { readVaultSearch } from "../support/cli-json";

const SAMPLE_VAULT = path.resolve(__dirname, "../../examples/vault");
let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-conventions-"));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

/** A clock that moves 50 ms every time it is read, so work "takes time" without waiting. */
function tickingClock(): Clock {
  let now = Date.parse("2025-09-21T10:00:00Z");
  return { now: () => (now += 50), sleep: async () => undefined };
}

async function cli(argv: string[], extra: Partial<CliIo> = {}) {
  let out = "";
  let err = "";
  const status: (string | null)[] = [];
  const code = await runCli(argv, {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: {},
    cwd: tmp,
    ...extra,
    ...(extra.statusLine ? { statusLine: (t: string | null) => status.push(t) } : {}),
  });
  return { code, out, err, status };
}

const vaultArgs = () => ["--vault", SAMPLE_VAULT, "--cache-dir", path.join(tmp, "cache")];

describe("asking the command about itself", () => {
  it("--version prints the package's version", async () => {
    expect(await cli(["--version"])).toMatchObject({ code: 0, out: `vault-research ${version}\n`, err: "" });
  });

  it("help COMMAND and COMMAND --help print the same flags", async () => {
    const help = await cli(["help", "search"]);
    const flagHelp = await cli(["search", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toBe(flagHelp.out);
    expect(help.out).toMatch(/^ {2}--limit N +how many notes/m);
    expect((await cli(["search", "-h"])).out).toBe(help.out);
  });

  it("suggests the command meant by a misspelt one", async () => {
    const run = await cli(["serach", "x"]);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^Unknown command "serach"\. Did you mean "search"\?\n/);
    expect((await cli(["help", "reserch"])).err).toContain('Did you mean "research"?');
  });
});

describe("words that are no command", () => {
  it("a name an object inherits (constructor, toString) is an unknown command, not a crash with exit 1", async () => {
    for (const name of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
      const run = await cli([name, "x"]);
      expect(run.code, name).toBe(2);
      expect(run.err, name).toMatch(new RegExp(`^Unknown command "${name}"\\.`));
      const help = await cli(["help", name]);
      expect(help.code, name).toBe(2);
      expect(help.err, name).toMatch(new RegExp(`^Unknown command "${name}"\\.`));
    }
  });

  it("--version or --help written with a typographic dash is named as such, not as an unknown command", async () => {
    // `—version` pasted from a page was "Unknown command "—version"": nothing said the dash was the trouble.
    for (const [word, meant] of [["—version", "--version"], ["–help", "--help"], ["—Help", "--help"]]) {
      const run = await cli([word]);
      expect(run.code, word).toBe(2);
      expect(run.out, word).toBe("");
      expect(run.err, word).toMatch(new RegExp(`^"${word}" is written with a typographic dash: options take two hyphens, ${meant}\\.\n`));
    }
  });

  it("a command in capitals is suggested in its own spelling", async () => {
    const run = await cli(["SEARCH", "x"]);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^Unknown command "SEARCH"\. Did you mean "search"\?\n/);
  });

  it("an option before the command says the command comes first, naming the one given", async () => {
    // "Unknown command "--vault"" said nothing of where the option belongs.
    const run = await cli(["--vault", SAMPLE_VAULT, "search", "sync"]);
    expect(run.code).toBe(2);
    expect(run.out).toBe("");
    expect(run.err).toBe('"--vault" is an option: the command comes first, then its options, e.g. vault-research search … --vault.\nCommands: research, search, index, embed, compare, websearch, promote, eval, mcp. Run "vault-research help" for what each does.\n');
    expect((await cli(["--quiet"])).err).toMatch(/^"--quiet" is an option: the command comes first, then its options, e\.g\. vault-research <command> … --quiet\.\n/);
  });
});

describe("the question from standard input", () => {
  it("reads a piped query when none is written, or when it is -", async () => {
    for (const argv of [["search", "--json", ...vaultArgs()], ["search", "-", "--json", ...vaultArgs()]]) {
      const run = await cli(argv, { readStdin: async () => "  relay server\noffline peers\n" });
      expect(run.code).toBe(0);
      expect(readVaultSearch(run.out).query).toBe("relay server offline peers");
    }
  });

  it("says so when - is given but standard input is a terminal", async () => {
    const run = await cli(["search", "-", ...vaultArgs()]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("standard input is a terminal");
  });
});

describe("progress", () => {
  const question = () => ["research", "why did we choose Automerge over Yjs", "--no-trace", ...vaultArgs()];

  it("goes to stderr only when stderr is a terminal, and never with --quiet", async () => {
    expect((await cli(question())).err).toBe("");
    const watched = await cli(question(), { stderrIsTerminal: true, env: { NO_COLOR: "1" } });
    expect(watched.err).toMatch(/^✓ \d+ of \d+ notes matched$/m);
    expect((await cli([...question(), "--quiet"], { stderrIsTerminal: true })).err).toBe("");
  });

  it("indexing shows a live line (read of total, rate, time left) on a terminal, cleared at the end", async () => {
    const run = await cli(["index", ...vaultArgs()], { stderrIsTerminal: true, statusLine: () => undefined, clock: tickingClock() });
    expect(run.code).toBe(0);
    const lines = run.status.filter((s): s is string => s !== null);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatch(/^Indexing: \d+ of 35 notes · \d+ notes\/s( · about \d+ s left)?$/);
    expect(run.status.at(-1)).toBeNull();
  });

  it("indexing redraws no live line on a dumb terminal (TERM=dumb), which cannot draw one in place", async () => {
    const run = await cli(["index", ...vaultArgs()], { stderrIsTerminal: true, statusLine: () => undefined, clock: tickingClock(), env: { TERM: "dumb" } });
    expect(run.code).toBe(0);
    expect(run.status).toEqual([]);
  });

  it("indexing prints nothing extra with --quiet or when stderr is not a terminal", async () => {
    expect((await cli(["index", "--quiet", ...vaultArgs()], { stderrIsTerminal: true, statusLine: () => undefined, clock: tickingClock() })).status).toEqual([]);
    const piped = await cli(["index", ...vaultArgs()], { clock: tickingClock() });
    expect(piped.status).toEqual([]);
    expect(piped.err).toBe("");
  });
});

describe("colour", () => {
  const search = () => ["search", "automerge yjs", "--limit", "1", ...vaultArgs()];

  it("only on a terminal", async () => {
    expect((await cli(search())).out).not.toContain("\u001b[");
    const coloured = await cli(search(), { stdoutIsTerminal: true });
    expect(coloured.out).toContain("\u001b[1;33m");
    expect(coloured.out).not.toContain("«");
  });

  it("never with NO_COLOR or --no-color", async () => {
    for (const run of [await cli(search(), { stdoutIsTerminal: true, env: { NO_COLOR: "1" } }), await cli([...search(), "--no-color"], { stdoutIsTerminal: true })]) {
      expect(run.out).not.toContain("\u001b[");
      expect(run.out).toContain("«");
    }
  });

  it("never on a dumb terminal (TERM=dumb), on stdout or stderr", async () => {
    const run = await cli(search(), { stdoutIsTerminal: true, stderrIsTerminal: true, env: { TERM: "dumb" } });
    expect(run.out).not.toContain("\u001b[");
    expect(run.out).toContain("«");
    const refused = await cli(["search", "x", "--limt", "3", ...vaultArgs()], { stderrIsTerminal: true, env: { TERM: "dumb" } });
    expect(refused.err).toMatch(/^vault-research search: Unknown option --limt/);
  });

  it("errors reach stderr whatever the progress setting", async () => {
    const run = await cli(["search", "x", "--quiet", "--limt", "3", ...vaultArgs()]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("Unknown option --limt. Did you mean --limit?");
  });
});
