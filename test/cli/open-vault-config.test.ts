// The --config file as open-vault.ts reads it: its top must be an object, and its master switch
// (`external.enabled`) lets web search run only when it is written `true` or not written at all.
// Web requests are answered from the recorded Brave demo, and VAULT_RESEARCH_REPLAY_LOG records
// every one the run made: an empty log is what proves nothing was asked.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseArgs } from "../../src/cli/args";
import { readSettings, requireWebSearchAllowed } from "../../src/cli/open-vault";
import { COMMANDS, runCli, type CliIo } from "../../src/cli/run";

const ROOT = path.resolve(__dirname, "../..");
const SAMPLE_VAULT = path.join(ROOT, "examples/vault");
const BRAVE_DEMO = path.join(ROOT, "fixtures/replay/brave-demo");
const KEY = "BSA-open-vault-config-test";

let tmp: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-open-vault-"));
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const log = () => path.join(tmp, "requests.jsonl");

/** The web requests the runs made so far (the replay log's lines). */
function requestsMade(): string[] {
  return existsSync(log()) ? readFileSync(log(), "utf8").split("\n").filter(Boolean) : [];
}

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIo = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { VAULT_RESEARCH_REPLAY_LOG: log(), BRAVE_SEARCH_API_KEY: KEY },
    cwd: tmp,
  };
  return { code: await runCli(argv, io), out, err };
}

function config(text: string, name = "config.json"): string {
  writeFileSync(path.join(tmp, name), text);
  return name;
}

const websearch = (file: string) => cli(["websearch", "automerge latest", "--external-provider", "brave", "--replay", BRAVE_DEMO, "--config", file]);
const research = (file: string) =>
  cli(["research", "automerge latest", "--vault", SAMPLE_VAULT, "--cache-dir", path.join(tmp, "cache"), "--external-search", "always", "--replay", BRAVE_DEMO, "--config", file]);

describe("the master switch written as something other than true or false keeps the web off", () => {
  it('external.enabled: "false" refuses websearch and research --external-search always: exit 2, nothing asked', async () => {
    const file = config(JSON.stringify({ external: { enabled: "false", providers: ["brave"] } }));
    for (const run of [await websearch(file), await research(file)]) {
      expect(run.code).toBe(2);
      expect(run.err).toContain("warning: config.json: external.enabled: expected true or false (web search stays off); the default is used.");
      expect(run.err).toContain("but the config's external.enabled is a string, not true or false, so web search stays off. Write external.enabled: true there to switch it on");
      expect(run.out).toBe("");
    }
    expect(requestsMade()).toEqual([]);
  });

  // mcp-command.ts reads its settings, and checks --allow-external against them, with these two.
  it("the MCP server's --allow-external is refused the same way, the value never repeated", () => {
    for (const [written, kind] of [
      ['"false"', "is a string"],
      ['"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"', "is a string"],
      ["0", "is a number"],
      ["null", "is null"],
      ["[true]", "is a list"],
    ] as const) {
      const file = config(`{"external": {"enabled": ${written}}}`);
      const settings = readSettings(parseArgs(["--config", file, "--allow-external"], COMMANDS.mcp.flags), { out: () => {}, err: () => {}, env: {}, cwd: tmp });
      expect(() => requireWebSearchAllowed(settings, "--allow-external"), written).toThrow(`but the config's external.enabled ${kind}, not true or false, so web search stays off.`);
      try {
        requireWebSearchAllowed(settings, "--allow-external");
      } catch (error) {
        expect((error as Error).message).not.toContain("sk-proj");
      }
    }
  });

  it("an external that is not an object keeps the web off too", async () => {
    const run = await websearch(config('{"external": "off"}'));
    expect(run.code).toBe(2);
    expect(run.err).toContain("but the config's external is a string, not an object, so web search stays off.");
    expect(requestsMade()).toEqual([]);
  });

  it("false is refused as before, and true or no word at all lets the flags decide", async () => {
    const off = await websearch(config(JSON.stringify({ external: { enabled: false } })));
    expect(off.code).toBe(2);
    expect(off.err).toContain("websearch asks for web search, but the config switches it off (external.enabled: false). Switch it on there, or leave websearch out.");
    expect(requestsMade()).toEqual([]);
    for (const written of [{ external: { enabled: true } }, { external: {} }, {}]) {
      const run = await websearch(config(JSON.stringify(written)));
      expect(run.code, JSON.stringify(written)).toBe(0);
    }
    expect(requestsMade()).toHaveLength(3);
  });
});

describe("a config file whose top is not an object is a usage error naming the file", () => {
  it.each([
    ["null", "null"],
    ["[]", "a list"],
    ['"x"', "a string"],
    ["42", "a number"],
    ["true", "true"],
  ])("%s", async (text, kind) => {
    const run = await cli(["index", "--vault", SAMPLE_VAULT, "--cache-dir", path.join(tmp, "cache"), "--config", config(text, "settings.json")]);
    expect(run.code).toBe(2);
    expect(run.err).toContain(`Config file settings.json holds ${kind}, not an object of settings`);
    expect(run.out).toBe("");
  });
});

describe("a config file holding keys", () => {
  const OPENAI_KEY = "sk-proj-Hq72Lx95WzNs41Tc68PeQm3";
  const EXA_KEY = "3f2a9c1e-7b4d-4e8a-9f10-2c5b6d7e8f90";

  function read(file: string): { err: string; error: unknown } {
    let err = "";
    try {
      readSettings(parseArgs(["--config", file], COMMANDS.search.flags), { out: () => {}, err: (t) => (err += t), env: {}, cwd: tmp });
      return { err, error: null };
    } catch (error) {
      return { err, error };
    }
  }

  // Told "not a setting; kept as it is, unused", or to put the key in secret storage, a person at the
  // command line was never told where the CLI reads keys: its environment variables.
  it("names where each key is, never what it is, and says keys go in environment variables", () => {
    const file = config(JSON.stringify({ model: { apiKey: OPENAI_KEY, model: OPENAI_KEY }, external: { exa: { secretId: EXA_KEY }, brave: { token: "BSAq9Lx2Vw7Zk4Tn8Rp1Ys6" } } }));
    const { err, error } = read(file);
    expect(error).toBeNull();
    expect(err).not.toContain(OPENAI_KEY);
    expect(err).not.toContain(EXA_KEY);
    expect(err).not.toContain("BSAq9Lx2");
    expect(err).not.toMatch(/secret storage|kept as it is/);
    for (const where of ["model.apiKey", "model.model", "external.exa.secretId", "external.brave.token"]) {
      expect(err.split("\n").find((line) => line.includes(`: ${where}: `)), where).toMatch(/environment variable/);
    }
    expect(err).toContain("OPENAI_API_KEY");
  });

  it("a key written as a name is not repeated either, and where keys go is said for it too", () => {
    const { err } = read(config(JSON.stringify({ external: { [OPENAI_KEY]: true } })));
    expect(err).not.toContain(OPENAI_KEY);
    expect(err).toContain("external.(a name that looks like an API key): not a setting; it was ignored.");
    expect(err).toMatch(/holds what looks like an API key \(external\.\(a name that looks like an API key\)\): the CLI never reads a key from a config file, only from its environment variable \(BRAVE_SEARCH_API_KEY, /);
  });

  it("a key given as the config file's name is not repeated", () => {
    for (const name of [OPENAI_KEY, `keys/${OPENAI_KEY}.json`]) {
      const { error } = read(name);
      expect(error, name).toBeInstanceOf(Error);
      expect((error as Error).message, name).toMatch(/^Config file \(a value that looks like an API key\) does not exist\.$/);
    }
    writeFileSync(path.join(tmp, `${EXA_KEY}.json`), "[1]");
    const { error } = read(`${EXA_KEY}.json`);
    expect((error as Error).message).not.toContain(EXA_KEY);
  });
});
