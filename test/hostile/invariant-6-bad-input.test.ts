// DESIGN invariant 6: bad input gets a clear message and loses nothing. The attacks: index caches
// that parse but are the wrong shape (every part broken in turn, wrong element types, reordered
// parts), caches that do not parse; settings with impossible dates, unknown keys and wrong types;
// provider bodies that are malformed JSON, HTML error pages or huge; a provider that never
// answers; model servers that answer nonsense; broken frontmatter and binary notes; and two notes
// whose names differ only in Unicode composition (each must keep its own key and citation).
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { serialize } from "node:v8";
import { describe, expect, it } from "vitest";
import { decodePart, encodePart } from "../../src/cli/file-index-cache";
import { partsOf, type JsonPath } from "../index/json-parts";
import { readIndexReport, readResearchResult, readVaultSearch } from "../support/cli-json";
import { braveReplay, cli, completion, config, filesUnder, hostileServer, sandboxEachTest, modelFlag, VAULT_QUESTION, WEB_QUESTION } from "./hostile-kit";

const place = sandboxEachTest();

const QUERY = "why did we choose Automerge over Yjs";

async function searchPaths(): Promise<{ code: number; paths: string[]; err: string }> {
  const run = await cli(place.box, ["search", QUERY, "--json"]);
  return { code: run.code, paths: run.code === 0 ? readVaultSearch(run.out).results.map((r) => r.path) : [], err: run.err };
}

/** The files of the vault's saved index (a manifest and its segments, in a folder per vault). */
function cacheFiles(): string[] {
  const files = filesUnder(place.box.cache).map((f) => f.file).filter((f) => f.endsWith(".v8"));
  expect(files.length).toBeGreaterThan(1);
  return files.sort();
}

/** A copy of `value` with the part at `path` replaced (typed arrays and maps are left whole). */
function withPart(value: unknown, at: JsonPath, wrong: unknown): unknown {
  const root = structuredClone(value) as Record<string | number, unknown>;
  let node = root;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[at[at.length - 1]] = wrong;
  return root;
}

/** Every part of a saved file that is an object field or an array element (typed arrays skipped). */
function partsOfSaved(value: unknown): JsonPath[] {
  return partsOf(JSON.parse(JSON.stringify(value, (_k, v: unknown) => (ArrayBuffer.isView(v) ? "typed" : v))));
}

/** Every file of the saved index as it is now, to put back after each attack. */
function snapshotCache(): Map<string, Buffer> {
  return new Map(cacheFiles().map((f) => [f, readFileSync(f)]));
}

function restoreCache(saved: Map<string, Buffer>): void {
  for (const f of filesUnder(place.box.cache).map((x) => x.file)) if (!saved.has(f)) rmSync(f);
  for (const [f, bytes] of saved) writeFileSync(f, bytes);
}

describe("a hostile index cache is a rebuild with a reason, never a crash or a changed result", () => {
  /** What a search over a good cache answers: the order every attacked cache must give again. */
  async function baseline(): Promise<string[]> {
    await searchPaths();
    const cached = await searchPaths();
    expect(cached.paths.length).toBeGreaterThan(0);
    return cached.paths;
  }

  it("parts of the manifest and of a segment broken in turn, each with a value of the wrong type", async () => {
    const fresh = (await searchPaths()).paths;
    const cached = (await searchPaths()).paths;
    const saved = snapshotCache();
    // Values of the wrong type. (Right type, impossible value — a negative length — is reported
    // as a neighbour for the index: it is accepted today and moves scores.)
    const wrong = [null, "x", [], {}, [1, "a", null], true, { length: 3 }];
    let broken = 0;
    for (const [file, bytes] of saved) {
      const value = decodePart(bytes, path.basename(file));
      const parts = partsOfSaved(value);
      const step = Math.max(1, Math.floor(parts.length / 14));
      for (let i = 0; i < parts.length; i += step, broken++) {
        // Written as the cache writes a part, checksum and all: the shape checks are what is attacked.
        writeFileSync(file, encodePart(withPart(value, parts[i], wrong[broken % wrong.length])));
        const result = await searchPaths();
        const where = `${path.basename(file)} ${parts[i].join(".")}`;
        expect(result.code, `${where}: ${result.err}`).toBe(0);
        // A rebuild answers as a fresh index, a part that does not matter as the cache did.
        expect([fresh, cached], where).toContainEqual(result.paths);
        restoreCache(saved);
      }
    }
    expect(broken).toBeGreaterThan(20);
  });

  const wholeFile: [string, (saved: Buffer) => Buffer | null][] = [
    ["cut in half", (saved) => saved.subarray(0, Math.floor(saved.length / 2))],
    ["empty", () => Buffer.alloc(0)],
    ["random bytes", (saved) => Buffer.from(Array.from(saved, (_b, i) => (i * 131 + 7) % 256))],
    ["JSON instead of v8", () => Buffer.from('{"format":"vault-research-index","version":6}')],
    ["v8 of null", () => encodePart(null)],
    ["v8 of an array", () => encodePart([1, 2, 3])],
    ["v8 without the checksum (an earlier version's part)", (saved) => serialize(decodePart(saved, "part"))],
    ["another version's header", (saved) => encodePart({ ...(decodePart(saved, "part") as object), version: 999 })],
    ["gone", () => null],
  ];

  for (const [what, edit] of wholeFile) {
    it(`a cache file that is ${what}: index says why it rebuilt, search answers as a fresh index`, async () => {
      const fresh = (await searchPaths()).paths;
      await baseline();
      const saved = snapshotCache();
      for (const [file, bytes] of saved) {
        const attack = () => {
          const changed = edit(bytes);
          if (changed === null) rmSync(file, { force: true });
          else writeFileSync(file, changed);
        };
        attack();
        const index = await cli(place.box, ["index", "--json"]);
        expect(index.code, `${path.basename(file)}: ${index.err}`).toBe(0);
        const sync = readIndexReport(index.out).sync;
        expect(sync.mode, path.basename(file)).toBe("rebuild");
        expect(sync.rebuild_reason).toBeTruthy();
        restoreCache(saved);
        attack();
        expect((await searchPaths()).paths, path.basename(file)).toEqual(fresh);
        restoreCache(saved);
      }
    });
  }
});

describe("hostile settings are reported and replaced by defaults, one field at a time", () => {
  it("an impossible freshness date in the settings is refused with a warning", async () => {
    const settings = config(place.box, { external: { freshness: "2025-13-45to2025-14-99", count: 3 } });
    const run = await cli(place.box, ["research", VAULT_QUESTION, "--config", settings]);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/external\.freshness/);
  });

  it("an impossible freshness date on the command line is a usage error that says what is wrong with it", async () => {
    const said = { "2025-02-30to2025-03-01": "real days", "2025-13-01to2025-12-31": "real days", "2025-06-01to2025-01-01": "the first is after the second" };
    for (const [bad, why] of Object.entries(said)) {
      const run = await cli(place.box, ["research", VAULT_QUESTION, "--external-freshness", bad]);
      expect(run.code, bad).toBe(2);
      expect(run.err).toContain("--external-freshness");
      // Not the shape the value already has, which read as if it had none.
      expect(run.err, bad).toContain(why);
    }
  });

  it("unknown keys are named in a warning, at any depth, and the rest is kept", async () => {
    const settings = config(place.box, { extrnal: { enabled: true }, notes: { traceFolder: "Runs", writeTraceNote: false }, index: { stemming: false } });
    const run = await cli(place.box, ["research", VAULT_QUESTION, "--trace", "--config", settings, "--json"]);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/extrnal/);
    expect(run.err).toMatch(/notes\.writeTraceNote/);
    expect(readResearchResult(run.out).trace_path).toMatch(/^Runs\//);
  });

  it("wrong types are warned about and replaced; settings that are not an object refuse the run, naming the file", async () => {
    const wrongTypes = place.box.write("bad.json", JSON.stringify({ external: { count: "ten", providers: ["brave", 7] }, notes: "yes" }));
    const warned = await cli(place.box, ["search", QUERY, "--config", wrongTypes]);
    expect(warned.code).toBe(0);
    expect(warned.err).toMatch(/warning/);
    // A run on defaults would quietly drop what the file was meant to say (web search off, folders left out).
    for (const raw of [null, [1, 2], "settings", 42]) {
      const file = place.box.write("not-settings.json", JSON.stringify(raw));
      const run = await cli(place.box, ["search", QUERY, "--config", file]);
      expect(run.code, JSON.stringify(raw)).toBe(2);
      expect(run.err).toMatch(/Config file .*not-settings\.json holds .*, not an object of settings/);
    }
  });
});

describe("settings hostile in shape are read, never a crash", () => {
  it("a config nested 100,000 deep: the search runs, the deep part and the bad value are named", async () => {
    const deep = `${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}`;
    const file = place.box.write("deep.json", `{"index":{"stemming":"no"},"x":${deep}}`);
    const run = await cli(place.box, ["search", QUERY, "--config", file]);
    expect(run.err).not.toMatch(/failed|call stack/);
    expect(run.code).toBe(0);
    expect(run.err).toMatch(/warning: .*deep\.json: x: not a setting/);
    expect(run.err).toMatch(/warning: .*deep\.json: index\.stemming: .*the default is used/);
  });

  it("keys named like an object's own members are named as not settings", async () => {
    const file = place.box.write("members.json", '{"foo":1,"constructor":1,"__proto__":{"x":1},"toString":2,"index":{"valueOf":1}}');
    const run = await cli(place.box, ["search", QUERY, "--config", file]);
    expect(run.code).toBe(0);
    for (const key of ["foo", "constructor", "__proto__", "toString", "index.valueOf"]) expect(run.err).toContain(`members.json: ${key}: not a setting`);
  });

  it("a model, Brave or Exa address that is not http(s) is refused with a word, and the default used", async () => {
    const settings = config(place.box, { model: { baseUrl: "javascript:alert(1)" }, external: { brave: { baseUrl: "file:///etc/passwd" }, exa: { baseUrl: "file:///etc/hosts" } } });
    const run = await cli(place.box, ["search", QUERY, "--config", settings]);
    expect(run.code).toBe(0);
    for (const key of ["model.baseUrl", "external.brave.baseUrl", "external.exa.baseUrl"]) expect(run.err).toContain(`${key}: expected an http(s) address; the default is used.`);
  });
});

describe("a question far longer than is read", () => {
  // Pasted text or an agent's argument: runs of `/` after a tag and of `a.` are what the planner's,
  // the router's and the query's patterns read again and again (minutes at this size before).
  const question = `${VAULT_QUESTION}${" ".repeat(3_000)}what does #a${"/".repeat(200_000)}b ${"a.".repeat(200_000)} mean`;

  it("a research run reads its first 2,000 characters, says so, and finds the vault's notes on it", async () => {
    const run = await cli(place.box, ["research", question, "--external-search", "always", "--replay", braveReplay(place.box, { grounding: { generic: [] } }, 200), "--retrieval-only", "--json"]);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.out) as { pack: { question: string; evidence: { path: string }[]; warnings: { kind: string; message: string }[] } };
    expect(json.pack.question).toBe(`${VAULT_QUESTION}…`);
    expect(json.pack.warnings).toContainEqual({ kind: "question_cut", message: `The question is ${question.length.toLocaleString("en-US")} characters long; only its first 2,000 were read.` });
    expect(json.pack.evidence.length).toBeGreaterThan(0);
  });

  it("a search reads its first 2,000 characters and says so", async () => {
    const run = await cli(place.box, ["search", question, "--json"]);
    expect(run.code).toBe(0);
    const json = JSON.parse(run.out) as { results: unknown[]; notices: { kind: string }[] };
    expect(json.notices.map((n) => n.kind)).toContain("query_cut");
    expect(json.results.length).toBeGreaterThan(0);
  });
});

describe("hostile provider answers lose no vault evidence", () => {
  const bodies: [string, object | string, number][] = [
    ["malformed JSON", "{\"grounding\": {\"generic\": [", 200],
    ["the wrong shape", { grounding: { generic: [{ url: 42, title: ["x"], snippets: "nope" }] } }, 200],
    ["an HTML error page", "<!doctype html><html><body><h1>502 Bad Gateway</h1></body></html>", 502],
    ["a huge body", "x".repeat(6 * 1024 * 1024), 200],
    ["rate limiting", { type: "ErrorResponse", error: { code: "RATE_LIMITED", status: 429 } }, 429],
  ];

  for (const [what, body, status] of bodies) {
    it(what, async () => {
      const replay = braveReplay(place.box, body, status);
      const run = await cli(place.box, ["research", WEB_QUESTION, "--external-search", "always", "--replay", replay, "--json"]);
      expect(run.code).toBe(0);
      const json = JSON.parse(run.out) as { pack: { evidence: unknown[]; warnings: { message: string }[] } };
      expect(json.pack.evidence.length).toBeGreaterThan(0);
      expect(json.pack.warnings.length).toBeGreaterThan(0);
      expect(json.pack.warnings.map((w) => w.message).join(" ")).toMatch(/Brave/);
    });
  }

  it("a provider that never answers is given up on, and the vault evidence is kept", async () => {
    const stall = await hostileServerThatNeverAnswers();
    const settings = config(place.box, { external: { enabled: true, providers: ["brave"], timeoutMs: 1500, sourceTimeoutMs: 1000, brave: { baseUrl: stall.url } } });
    try {
      const run = await cli(place.box, ["research", WEB_QUESTION, "--external-search", "always", "--config", settings, "--json"], { BRAVE_SEARCH_API_KEY: "BSA-stall" });
      expect(run.code).toBe(0);
      expect(readResearchResult(run.out).pack.evidence.length).toBeGreaterThan(0);
    } finally {
      await stall.close();
    }
  }, 20_000);
});

describe("hostile model servers leave the evidence brief in their place", () => {
  const answers: [string, { status?: number; body: object | string }][] = [
    ["no choices", { body: { choices: [] } }],
    ["a choice without text", { body: { choices: [{ message: { role: "assistant" } }] } }],
    ["not JSON", { body: "<html>oops</html>" }],
    ["a 503", { status: 503, body: { error: "overloaded" } }],
  ];
  for (const [what, answer] of answers) {
    it(what, async () => {
      place.server = await hostileServer(() => answer);
      const run = await cli(place.box, ["research", VAULT_QUESTION, ...modelFlag(place.server), "--json"]);
      expect(run.code).toBe(0);
      const json = JSON.parse(run.out) as { stop_reason: string; answer: { kind: string }; pack: { warnings: { kind: string }[] } };
      expect(json.answer.kind).toBe("extractive");
      expect(json.stop_reason).toBe("synthesis_unavailable");
      expect(json.pack.warnings.map((w) => w.kind)).toContain("synthesis_unavailable");
    });
  }

  it("an answer citing keys it was never given is shown unverified, never as a normal answer", async () => {
    place.server = await hostileServer(() => ({ body: completion("Yjs was chosen [src:0000000000] [ext:brave:ffffffffff].") }));
    const run = await cli(place.box, ["research", VAULT_QUESTION, ...modelFlag(place.server)]);
    expect(run.code).toBe(0);
    expect(run.out).toContain("UNVERIFIED ANSWER");
  });
});

describe("hostile notes", () => {
  it("broken frontmatter, binary content and a huge line are indexed as text where possible and reported", async () => {
    place.box.write("vault/Broken/Frontmatter.md", "---\ntitle: [unclosed\ntags: {a: b\n---\n\nAutomerge over Yjs, said the broken note.\n");
    place.box.write("vault/Broken/Binary.md", "\u0000\u0001PNG\r\n\u001a\n".repeat(50));
    place.box.write("vault/Broken/Long line.md", `Automerge ${"word ".repeat(200_000)}\n`);
    // A property that holds itself (a YAML alias inside its own anchor).
    place.box.write("vault/Broken/Cycle.md", "---\nloop: &x [*x]\nyear: 1999\n---\nAutomerge and a loop.\n");
    const index = await cli(place.box, ["index", "--json"]);
    expect(index.code).toBe(0);
    const search = await cli(place.box, ["search", QUERY]);
    expect(search.code).toBe(0);
    const cycle = await cli(place.box, ["search", "1999", "--json"]);
    expect(readVaultSearch(cycle.out).results.map((r) => r.path)).toContain("Broken/Cycle.md");
  });

  it("properties named like an object's own members are searched by name, like any other (a __proto__ key too, as a plain property: nothing is polluted)", async () => {
    place.box.write("vault/Odd/Keys.md", "---\n__proto__: polluted\nconstructor: 3\ntoString: yes\nvalueOf: []\n---\nA note of odd property names.\n");
    for (const word of ["constructor", "string"]) {
      const search = await cli(place.box, ["search", word, "--json"]);
      expect(search.code, word).toBe(0);
      expect(readVaultSearch(search.out).results.map((r) => r.path), word).toContain("Odd/Keys.md");
    }
    // Read as the YAML library reads it, an own key: its value is the note's, and no other note is touched.
    const kept = await cli(place.box, ["search", "polluted", "--json"]);
    expect(readVaultSearch(kept.out).results.map((r) => r.path)).toEqual(["Odd/Keys.md"]);
  });

  it("café.md spelled composed and decomposed are two notes with two keys, each cited as itself", async () => {
    place.box.write("vault/Cafe/Caf\u00e9.md", "# Café composed\n\nThe composed café note says Automerge beat Yjs on history.\n");
    place.box.write("vault/Cafe/Cafe\u0301.md", "# Café decomposed\n\nThe decomposed café note says Automerge beat Yjs on history too.\n");
    const run = await cli(place.box, ["research", "which café note says Automerge beat Yjs on history", "--json"]);
    const result = readResearchResult(run.out);
    const rows = result.pack.evidence.filter((r) => r.note_path.startsWith("Cafe/"));
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((r) => r.source_key)).size).toBe(2);
    for (const c of result.citations!.filter((x) => x.note_path?.startsWith("Cafe/"))) expect(rows.find((r) => r.source_key === c.source_key)?.note_path).toBe(c.note_path);
  });
});

/** A server that accepts connections and never answers. */
async function hostileServerThatNeverAnswers(): Promise<{ url: string; close(): Promise<void> }> {
  const { createServer } = await import("node:http");
  const open = new Set<import("node:http").ServerResponse>();
  const s = createServer((_req, res) => void open.add(res));
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", resolve));
  const port = (s.address() as import("node:net").AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const res of open) res.destroy();
        s.close(() => resolve());
      }),
  };
}
