// DESIGN invariant 8: writes stay inside the vault (real paths checked on create and rewrite), are
// atomic, and never lose a concurrent run's note. The attacks: hostile vault layouts (the trace
// or sources folder a link to a folder outside, a note's name taken by a link or a dangling link,
// a trace note hard-linked to a file outside, folders in the settings that climb out), ten runs
// of one question at once, a reader racing the writers, and promotions racing each other.
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readResearchResult } from "../support/cli-json";
import { parseTraceNote } from "../../src/notes/trace-note-read";
import { cli, config, filesUnder, ROOT, sandbox, traceNotes, VAULT_QUESTION, WEB_QUESTION, type Sandbox } from "./hostile-kit";

const BRAVE_DEMO = path.join(ROOT, "fixtures/replay/brave-demo");
const DEMO_PAGES = path.join(ROOT, "fixtures/replay/brave-demo-pages");

let box: Sandbox;

beforeEach(() => {
  box = sandbox();
});

afterEach(() => box.cleanup());

const outsideIsEmpty = () => expect(filesUnder(box.outside).map((f) => f.file)).toEqual([]);

describe("a folder of the vault that links out of it", () => {
  it("Research/ → outside: no trace note is written there, and the run exits 1 saying so", async () => {
    symlinkSync(box.outside, path.join(box.vault, "Research"));
    const run = await cli(box, ["research", VAULT_QUESTION, "--trace"]);
    expect(run.code).toBe(1);
    expect(run.out).toContain("Trace note: not written");
    expect(run.out).toMatch(/trace note could not be written: .*outside the vault/i);
    outsideIsEmpty();
    expect(readdirSync(box.outside)).toEqual([]);
  });

  it("Research/Traces/ → outside: the same", async () => {
    mkdirSync(path.join(box.vault, "Research"));
    symlinkSync(box.outside, path.join(box.vault, "Research/Traces"));
    const run = await cli(box, ["research", VAULT_QUESTION, "--trace", "--json"]);
    expect(run.code).toBe(1);
    expect(readResearchResult(run.out).trace_path).toBeNull();
    outsideIsEmpty();
  });

  it("a link inside the vault to another folder of the vault is followed", async () => {
    mkdirSync(path.join(box.vault, "Elsewhere"));
    mkdirSync(path.join(box.vault, "Research"));
    symlinkSync(path.join(box.vault, "Elsewhere"), path.join(box.vault, "Research/Traces"));
    const run = await cli(box, ["research", VAULT_QUESTION, "--trace"]);
    expect(run.code).toBe(0);
    expect(readdirSync(path.join(box.vault, "Elsewhere"))).toHaveLength(1);
  });

  it("Research/Sources/ → outside: promotion writes nothing there and fails saying why", async () => {
    const first = await cli(box, ["research", WEB_QUESTION, "--trace", "--external-search", "on-weak", "--replay", BRAVE_DEMO, "--json"]);
    const { trace_path, pack } = JSON.parse(first.out) as { trace_path: string; pack: { external_evidence: { source_key: string }[] } };
    symlinkSync(box.outside, path.join(box.vault, "Research/Sources"));
    const promoted = await cli(box, ["promote", "--trace", trace_path, "--source-key", pack.external_evidence[0].source_key, "--replay", DEMO_PAGES]);
    expect(promoted.code).toBe(1);
    expect(promoted.err).toMatch(/could not be written: .*outside the vault/);
    outsideIsEmpty();
  });

  it("folders in the settings that climb out of the vault are refused, and ones that start at the root stay inside it", async () => {
    const settings = config(box, { notes: { traceFolder: "../outside/../../x/Traces", sourcesFolder: "/etc/Sources" } });
    const run = await cli(box, ["research", VAULT_QUESTION, "--trace", "--config", settings, "--json"]);
    expect(run.code).toBe(0);
    // `..` is refused with a word (the default folder is used); a leading `/` is the vault's top.
    expect(run.err).toMatch(/notes\.traceFolder: "\.\.\/outside\/\.\.\/\.\.\/x\/Traces" climbs out of the vault/);
    expect(run.err).not.toMatch(/sourcesFolder/);
    const tracePath = readResearchResult(run.out).trace_path;
    expect(tracePath).toMatch(/^Research\/Traces\//);
    expect(existsSync(path.join(box.vault, tracePath!))).toBe(true);
    outsideIsEmpty();
  });
});

describe("a note's name already taken by something that is not a note", () => {
  async function tracePathOf(): Promise<string> {
    const run = await cli(box, ["research", VAULT_QUESTION, "--trace", "--json"]);
    const tracePath = readResearchResult(run.out).trace_path;
    if (tracePath === null) throw new Error(`the run wrote no trace note: ${run.err}`);
    return tracePath;
  }

  it("a dangling link where the trace note would go: left alone, the note written at the next name", async () => {
    const first = await tracePathOf();
    const taken = path.join(box.vault, first);
    writeFileSync(path.join(box.outside, "keep.txt"), "untouched\n");
    // Same minute, same question: the next run's first choice is the name the link now holds.
    const name = path.basename(first, ".md");
    const link = path.join(path.dirname(taken), `${name} 2.md`);
    symlinkSync(path.join(box.outside, "planted.md"), link);
    const second = await tracePathOf();
    expect([`${name} 3.md`, `${name} 2.md`]).toContain(path.basename(second));
    expect(path.basename(second)).not.toBe(`${name} 2.md`);
    expect(existsSync(path.join(box.outside, "planted.md"))).toBe(false);
  });

  it("a link to a file outside where the trace note would go: that file is never written", async () => {
    const first = await tracePathOf();
    const name = path.basename(first, ".md");
    writeFileSync(path.join(box.outside, "victim.md"), "victim\n");
    symlinkSync(path.join(box.outside, "victim.md"), path.join(box.vault, path.dirname(first), `${name} 2.md`));
    await tracePathOf();
    expect(readFileSync(path.join(box.outside, "victim.md"), "utf8")).toBe("victim\n");
  });
});

describe("rewriting a trace note (promotion)", () => {
  async function researchAndPromoteTarget() {
    const run = await cli(box, ["research", WEB_QUESTION, "--trace", "--external-search", "on-weak", "--replay", BRAVE_DEMO, "--json"]);
    const json = JSON.parse(run.out) as { trace_path: string; pack: { external_evidence: { source_key: string }[] } };
    return { tracePath: json.trace_path, keys: json.pack.external_evidence.map((r) => r.source_key) };
  }

  it("never rewrites a trace note that is a link to a file outside the vault", async () => {
    const { tracePath, keys } = await researchAndPromoteTarget();
    const real = path.join(box.vault, tracePath);
    const outsideCopy = path.join(box.outside, "trace.md");
    writeFileSync(outsideCopy, readFileSync(real, "utf8"));
    const before = readFileSync(outsideCopy, "utf8");
    const linked = path.join(path.dirname(real), "Linked trace.md");
    symlinkSync(outsideCopy, linked);
    const promoted = await cli(box, ["promote", "--trace", path.relative(box.vault, linked), "--source-key", keys[0], "--replay", DEMO_PAGES, "--json"]);
    expect(readFileSync(outsideCopy, "utf8")).toBe(before);
    expect(JSON.parse(promoted.out)).not.toMatchObject({ trace_updated: true });
  });

  it("rewrites a trace note hard-linked to a file outside by replacing the vault's name only", async () => {
    const { tracePath, keys } = await researchAndPromoteTarget();
    const real = path.join(box.vault, tracePath);
    const outsideName = path.join(box.outside, "same-file.md");
    linkSync(real, outsideName);
    const before = readFileSync(outsideName, "utf8");
    const promoted = await cli(box, ["promote", "--trace", tracePath, "--source-key", keys[0], "--replay", DEMO_PAGES, "--json"]);
    expect(JSON.parse(promoted.out)).toMatchObject({ status: "created", trace_updated: true });
    expect(readFileSync(outsideName, "utf8")).toBe(before);
    expect(readFileSync(real, "utf8")).not.toBe(before);
  });

  it("two promotions of one trace note at once both end up recorded in it", async () => {
    const { tracePath, keys } = await researchAndPromoteTarget();
    expect(keys.length).toBeGreaterThanOrEqual(2);
    const runs = await Promise.all(keys.slice(0, 3).map((key) => cli(box, ["promote", "--trace", tracePath, "--source-key", key, "--replay", DEMO_PAGES, "--json"])));
    for (const run of runs) expect(JSON.parse(run.out)).toMatchObject({ status: "created", trace_updated: true });
    const parsed = parseTraceNote(readFileSync(path.join(box.vault, tracePath), "utf8"));
    expect("trace" in parsed && parsed.trace.promotions?.map((p) => p.source_key).sort()).toEqual(keys.slice(0, 3).sort());
  });
});

describe("ten runs of one question at once", () => {
  it("leave ten trace notes, each whole, and every run exits 0", async () => {
    const runs = await Promise.all(Array.from({ length: 10 }, () => cli(box, ["research", VAULT_QUESTION, "--trace", "--json"])));
    expect(runs.map((r) => r.code)).toEqual(Array(10).fill(0));
    const paths = runs.map((r) => readResearchResult(r.out).trace_path);
    expect(new Set(paths).size).toBe(10);
    const notes = traceNotes(box);
    expect(notes).toHaveLength(10);
    for (const note of notes) expect(parseTraceNote(note.text)).toHaveProperty("trace");
    // No temporary file or lock is left behind.
    expect(readdirSync(path.join(box.vault, "Research/Traces")).filter((n) => n.startsWith("."))).toEqual([]);
  });

  it("while a reader polls the folder, it never sees half a trace note", async () => {
    const folder = path.join(box.vault, "Research/Traces");
    let done = false;
    const halfSeen: string[] = [];
    const reader = (async () => {
      while (!done) {
        for (const name of existsSync(folder) ? readdirSync(folder) : []) {
          if (name.startsWith(".")) continue;
          const text = readFileSync(path.join(folder, name), "utf8");
          if (!("trace" in parseTraceNote(text))) halfSeen.push(name);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await Promise.all(Array.from({ length: 10 }, () => cli(box, ["research", VAULT_QUESTION, "--trace"])));
    done = true;
    await reader;
    expect(halfSeen).toEqual([]);
    expect(traceNotes(box)).toHaveLength(10);
  });
});
