// `embed` against a stand-in server on 127.0.0.1 that refuses one note, then `search --level 2` as a
// command of its own: it loads the vectors from the cache folder, the run's memory gone, and still
// says the note was refused rather than that it waits for embedding to catch up.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli, type CliIo } from "../../src/cli/run";
import { readEmbedReport, readVaultSearch } from "../support/cli-json";
import { startStandInServer, type StandInServer } from "../llm/embeddings/stand-in-embedding-server";

let server: StandInServer;
let tmp: string;
let vault: string;
let cache: string;

beforeAll(async () => {
  server = await startStandInServer({ dimensions: 32 });
});
afterAll(() => server.close());

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-left-out-"));
  vault = path.join(tmp, "vault");
  cache = path.join(tmp, "cache");
  mkdirSync(vault);
  writeFileSync(path.join(vault, "Soup.md"), "# Soup\n\nLeek and potato soup with bread.\n");
  writeFileSync(path.join(vault, "Bread.md"), "# Bread\n\nFlour, water, salt and time.\n");
  writeFileSync(path.join(vault, "Poisoned.md"), "# Poisoned\n\nA soup the server chokes on: zqxpoison.\n");
  server.script = { dimensions: 32 };
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIo = { out: (t) => (out += t), err: (t) => (err += t), env: {}, cwd: tmp };
  const code = await runCli([...argv, "--vault", vault, "--cache-dir", cache, "--embed", `ollama:nomic-embed-text@${server.base}`], io);
  return { code, out, err };
}

describe("notes the embedding server refused, in a later search", () => {
  it("search --level 2 --json says the refused note was refused, not that embedding will catch up", async () => {
    server.script.nullFor = "zqxpoison";
    const embed = await cli("embed", "--json");
    expect(embed.code, embed.err).toBe(0);
    expect(readEmbedReport(embed.out)).toMatchObject({ notes_embedded: 2, notes_refused: 1 });
    // The server would refuse it again; the search asks it only for the query.
    const search = await cli("search", "soup", "--level", "2", "--json");
    expect(search.code, search.err).toBe(0);
    const json = readVaultSearch(search.out);
    expect(json.ran_level).toBe(2);
    expect(json.notices).toEqual([
      { kind: "vectors_partial", message: "Vectors cover 2 of 3 notes; the others are found by their words only: 1 the embedding server refused (its answer was not a vector)." },
    ]);
  });

  it("once the refused note is edited, it is waiting again", async () => {
    server.script.nullFor = "zqxpoison";
    expect((await cli("embed", "--json")).code).toBe(0);
    writeFileSync(path.join(vault, "Poisoned.md"), "# Poisoned\n\nA soup the server will take now, a little longer.\n");
    const json = readVaultSearch((await cli("search", "soup", "--level", "2", "--json")).out);
    expect(json.notices).toEqual([{ kind: "vectors_partial", message: "Vectors cover 2 of 3 notes; the others are found by their words only until embedding catches up." }]);
  });
});
