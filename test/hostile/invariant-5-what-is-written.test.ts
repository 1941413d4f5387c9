// DESIGN invariant 5: the plugin writes into the vault only trace notes (if enabled) and notes the
// user promoted; it never overwrites an existing file; trace notes are excluded from the index.
// The attacks: a user's own note outside the trace folder holding a copied trace block (promotion
// must not rewrite it); a note in the trace folder the plugin did not write (no trace properties,
// or properties of another run); a file already at the promoted note's name; a trace folder full of
// notes that match the question; every command run over the vault, looking for any other write.
import { mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readResearchResult, readVaultSearch } from "../support/cli-json";
import { bareCli, cli, config, filesUnder, ROOT, sandbox, VAULT_QUESTION, WEB_QUESTION, type Sandbox } from "./hostile-kit";

const BRAVE_DEMO = path.join(ROOT, "fixtures/replay/brave-demo");
const DEMO_PAGES = path.join(ROOT, "fixtures/replay/brave-demo-pages");

let box: Sandbox;

beforeEach(() => {
  box = sandbox();
});

afterEach(() => box.cleanup());

/** Every file of the vault with its text: a snapshot to compare before and after. */
const snapshot = () => new Map(filesUnder(box.vault).map((f) => [path.relative(box.vault, f.file), f.text]));

function added(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after.keys()].filter((k) => !before.has(k));
}

function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...before.keys()].filter((k) => after.get(k) !== before.get(k));
}

async function webRun(): Promise<{ tracePath: string; keys: string[] }> {
  const run = await cli(box, ["research", WEB_QUESTION, "--trace", "--external-search", "on-weak", "--replay", BRAVE_DEMO, "--json"]);
  const json = JSON.parse(run.out) as { trace_path: string; pack: { external_evidence: { source_key: string }[] } };
  return { tracePath: json.trace_path, keys: json.pack.external_evidence.map((r) => r.source_key) };
}

describe("what a run writes", () => {
  it("a research run with web search adds exactly one file, its trace note, and changes none", async () => {
    const before = snapshot();
    const { tracePath } = await webRun();
    const after = snapshot();
    expect(added(before, after)).toEqual([tracePath]);
    expect(changed(before, after)).toEqual([]);
  });

  it("with trace notes off, and for search, index and eval, nothing at all", async () => {
    const before = snapshot();
    await cli(box, ["research", VAULT_QUESTION, "--no-trace"]);
    await cli(box, ["search", VAULT_QUESTION]);
    await cli(box, ["index"]);
    await cli(box, ["eval", "--file", path.join(ROOT, "evals/research/sample-vault.json")]);
    expect(snapshot()).toEqual(before);
  });

  it("a promotion adds its source note and changes only its trace note", async () => {
    const { tracePath, keys } = await webRun();
    const before = snapshot();
    const promoted = await cli(box, ["promote", "--trace", tracePath, "--source-key", keys[0], "--replay", DEMO_PAGES, "--json"]);
    const { note_path } = JSON.parse(promoted.out) as { note_path: string };
    const after = snapshot();
    expect(added(before, after)).toEqual([note_path]);
    expect(changed(before, after)).toEqual([tracePath]);
  });
});

describe("promotion rewrites only trace notes the plugin wrote, in the trace folder", () => {
  it("a user's own note outside the trace folder holding a copy of a trace is not rewritten", async () => {
    const { tracePath, keys } = await webRun();
    const copy = `My notes on this run.\n\n${readFileSync(path.join(box.vault, tracePath), "utf8")}`;
    box.write("vault/Journal/My copy of a run.md", copy);
    const promoted = await cli(box, ["promote", "--trace", "Journal/My copy of a run.md", "--source-key", keys[0], "--replay", DEMO_PAGES, "--json"]);
    const result = JSON.parse(promoted.out) as { status: string; trace_updated: boolean; warnings: string[] };
    expect(result).toMatchObject({ status: "created", trace_updated: false });
    expect(result.warnings.join(" ")).toMatch(/not in the trace folder/);
    expect(readFileSync(path.join(box.vault, "Journal/My copy of a run.md"), "utf8")).toBe(copy);
  });

  it("a note in the trace folder without the trace's properties is not rewritten", async () => {
    const { tracePath, keys } = await webRun();
    const text = readFileSync(path.join(box.vault, tracePath), "utf8");
    const body = text.slice(text.indexOf("\n---\n", 4) + 5);
    box.write("vault/Research/Traces/Pasted.md", `# Pasted by me\n\n${body}`);
    const promoted = await cli(box, ["promote", "--trace", "Research/Traces/Pasted.md", "--source-key", keys[0], "--replay", DEMO_PAGES, "--json"]);
    expect(JSON.parse(promoted.out)).toMatchObject({ status: "created", trace_updated: false });
    expect(readFileSync(path.join(box.vault, "Research/Traces/Pasted.md"), "utf8")).toBe(`# Pasted by me\n\n${body}`);
  });

  it("a trace note whose properties name another run is not rewritten", async () => {
    const { tracePath, keys } = await webRun();
    const file = path.join(box.vault, tracePath);
    const edited = readFileSync(file, "utf8").replace(/^run_id: .*$/m, "run_id: 20200101-000000-abcdef");
    box.write(path.join("vault", tracePath), edited);
    const promoted = await cli(box, ["promote", "--trace", tracePath, "--source-key", keys[0], "--replay", DEMO_PAGES, "--json"]);
    expect(JSON.parse(promoted.out)).toMatchObject({ status: "created", trace_updated: false });
    expect(readFileSync(file, "utf8")).toBe(edited);
  });
});

describe("never over an existing file", () => {
  it("a file already at the promoted note's name is left as it is; the note takes the next name", async () => {
    const { tracePath, keys } = await webRun();
    const first = JSON.parse((await cli(box, ["promote", "--trace", tracePath, "--source-key", keys[0], "--replay", DEMO_PAGES, "--json"])).out) as { note_path: string };
    // The user deletes the note and keeps their own text under its name; another trace promotes the page again.
    box.write(path.join("vault", first.note_path), "MY OWN TEXT\n");
    const second = await webRun();
    const again = JSON.parse((await cli(box, ["promote", "--trace", second.tracePath, "--source-key", keys[0], "--replay", DEMO_PAGES, "--json"])).out) as { status: string; note_path: string };
    expect(readFileSync(path.join(box.vault, first.note_path), "utf8")).toBe("MY OWN TEXT\n");
    if (again.status === "created") expect(again.note_path).not.toBe(first.note_path);
  });
});

describe("trace notes are never evidence", () => {
  it("a trace folder full of notes that match the question gives no vault row", async () => {
    for (let i = 0; i < 5; i++) box.write(`vault/Research/Traces/Run ${i}.md`, `# ${VAULT_QUESTION}\n\n${VAULT_QUESTION} ${VAULT_QUESTION} Automerge Yjs choose.\n`);
    await cli(box, ["research", VAULT_QUESTION, "--trace"]);
    const run = await cli(box, ["research", VAULT_QUESTION, "--trace", "--json"]);
    const paths = readResearchResult(run.out).pack.evidence.map((r) => r.note_path);
    expect(paths.length).toBeGreaterThan(0);
    expect(paths.filter((p) => p.startsWith("Research/Traces/"))).toEqual([]);
    const search = await cli(box, ["search", VAULT_QUESTION, "--json"]);
    expect(readVaultSearch(search.out).results.filter((r) => r.path.startsWith("Research/Traces/"))).toEqual([]);
  });
});

describe("a trace note moved out of the trace folder is never evidence", () => {
  it("nor when an editor rewrote its type: as a list (Obsidian, for a list property), or with a comment", async () => {
    const { tracePath } = await webRun();
    const trace = readFileSync(path.join(box.vault, tracePath), "utf8");
    expect(trace).toMatch(/^type: research-trace$/m);
    box.write("vault/Moved/As a list.md", trace.replace(/^type: research-trace$/m, "type:\n  - research-trace"));
    box.write("vault/Moved/With a comment.md", trace.replace(/^type: research-trace$/m, "type: research-trace # from a run"));
    // Words only the run's web rows hold.
    const search = await cli(box, ["search", "Automerge 3.0 lower memory", "--json"]);
    expect(search.code, search.err).toBe(0);
    expect(readVaultSearch(search.out).results.map((r) => r.path).filter((p) => p.startsWith("Moved/"))).toEqual([]);
    const run = await cli(box, ["research", WEB_QUESTION, "--json"]);
    expect(readResearchResult(run.out).pack.evidence.map((r) => r.note_path).filter((p) => p.startsWith("Moved/"))).toEqual([]);
  });
});

describe("the cache folder is never inside the vault", () => {
  // The index cache, the query log and kept traces go there: inside the vault, a kept trace would
  // be read back as a note of the vault, its web rows quoted as vault evidence.
  const ways: [string, () => { flags: string[]; env: Record<string, string>; named: string }][] = [
    ["--cache-dir inside the vault", () => ({ flags: ["--cache-dir", path.join(box.vault, "cache")], env: {}, named: path.join(box.vault, "cache") })],
    ["--cache-dir the vault itself", () => ({ flags: ["--cache-dir", box.vault], env: {}, named: box.vault })],
    ["--cache-dir relative, through a link to the vault", () => {
      symlinkSync(box.vault, path.join(box.dir, "link"));
      return { flags: ["--cache-dir", "link/cache"], env: {}, named: "link/cache" };
    }],
    ["VAULT_RESEARCH_CACHE_DIR inside the vault", () => ({ flags: [], env: { VAULT_RESEARCH_CACHE_DIR: path.join(box.vault, "Cache") }, named: path.join(box.vault, "Cache") })],
    ["XDG_CACHE_HOME inside the vault", () => ({ flags: [], env: { XDG_CACHE_HOME: path.join(box.vault, "Daily") }, named: path.join(box.vault, "Daily", "vault-research") })],
  ];

  for (const [way, given] of ways) {
    it(`${way}: refused as a usage error naming the folder, and nothing is written`, async () => {
      const { flags, env, named } = given();
      const before = snapshot();
      for (const argv of [
        ["research", WEB_QUESTION, "--external-search", "always", "--external-provider", "brave", "--replay", BRAVE_DEMO],
        ["search", "Automerge 3.0 lower memory", "--limit", "1"],
        ["index"],
        ["promote", "--trace", "20250101-000000-abcdef", "--source-key", "ext:brave:0123456789"],
      ]) {
        const run = await bareCli(box, [...argv, "--vault", box.vault, ...flags], env);
        expect(run.code, `${argv[0]}: ${run.err}`).toBe(2);
        expect(run.err).toContain(named);
        expect(run.err).toMatch(/(inside the vault|the vault itself).*Choose one outside it/s);
      }
      expect(snapshot()).toEqual(before);
    });
  }

  it("a cache folder below a hidden folder of the vault (a vault that is a home folder: ~/.cache) is allowed, and nothing there is read as a note", async () => {
    const cache = path.join(box.vault, ".cache", "vault-research");
    const run = await bareCli(box, ["research", WEB_QUESTION, "--external-search", "always", "--external-provider", "brave", "--replay", BRAVE_DEMO, "--vault", box.vault, "--cache-dir", cache, "--json"]);
    expect(run.code, run.err).toBe(0);
    expect(readdirSync(path.join(cache, "traces")).length).toBeGreaterThan(0);
    const search = await bareCli(box, ["search", "Automerge 3.0 lower memory", "--vault", box.vault, "--cache-dir", cache, "--json"]);
    expect(search.code, search.err).toBe(0);
    expect((JSON.parse(search.out) as { results: { path: string }[] }).results.map((r) => r.path).filter((p) => p.startsWith("."))).toEqual([]);
  });

  it("a cache folder beside the vault whose name starts alike is not inside it", async () => {
    mkdirSync(`${box.vault}-cache`);
    const run = await bareCli(box, ["search", VAULT_QUESTION, "--vault", box.vault, "--cache-dir", `${box.vault}-cache`]);
    expect(run.code, run.err).toBe(0);
  });
});

describe("folder settings spelled a little differently keep their rules", () => {
  it("a trace folder written ./AI Traces takes the trace note, and the note is never searched", async () => {
    const settings = config(box, { notes: { traceFolder: "./AI Traces" } });
    const run = await cli(box, ["research", WEB_QUESTION, "--trace", "--external-search", "always", "--replay", BRAVE_DEMO, "--config", settings, "--json"]);
    expect(run.code, run.err).toBe(0);
    expect((JSON.parse(run.out) as { trace_path: string }).trace_path).toMatch(/^AI Traces\/[^/]+\.md$/);
    for (const query of ["Automerge 3.0 lower memory", WEB_QUESTION]) {
      const search = await cli(box, ["search", query, "--config", settings, "--json"]);
      expect((JSON.parse(search.out) as { results: { path: string }[] }).results.map((r) => r.path).filter((p) => p.startsWith("AI Traces/"))).toEqual([]);
    }
  });

  it("excluded folders written ./Archive or Archive\\ exclude the Archive", async () => {
    const count = async (excludedFolders: string[]) => {
      const settings = config(box, { index: { excludedFolders } });
      const run = await cli(box, ["index", "--config", settings, "--json"]);
      expect(run.err).toBe("");
      return (JSON.parse(run.out) as { notes: number }).notes;
    };
    const all = await count([]);
    const without = await count(["Archive"]);
    expect(without).toBeLessThan(all);
    expect(await count(["./Archive"])).toBe(without);
    expect(await count(["Archive\\"])).toBe(without);
    expect(await count([" Archive/ "])).toBe(without);
  });

  it("a trace folder that climbs out of the vault is refused with a word, and the default folder used", async () => {
    const settings = config(box, { notes: { traceFolder: "../esc" } });
    const run = await cli(box, ["research", VAULT_QUESTION, "--trace", "--config", settings, "--json"]);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/notes\.traceFolder: "\.\.\/esc" climbs out of the vault/);
    expect((JSON.parse(run.out) as { trace_path: string }).trace_path).toMatch(/^Research\/Traces\//);
  });
});
