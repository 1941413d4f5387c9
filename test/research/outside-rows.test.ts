// Outside-vault rows as a run builds them from recorded provider answers: their lane, label and
// keys, the wall between them and vault rows, and the folding of duplicates — a page the vault
// already holds becomes its `src:` row; a page two providers found is one row.
import { describe, expect, it } from "vitest";
import { researchPackSchema, type ResearchPack } from "../../src/evidence/research-pack";
import { canonicalizeUrl } from "../../src/websearch/canonical-url";
import { planQuestion } from "../../src/research/stages/plan";
import { buildOutsideEvidence } from "../../src/research/stages/outside-evidence";
import type { MergedResult } from "../../src/websearch/search-providers";
import type { ProviderName } from "../../src/settings";
import { replayFile, replayFolder } from "../support/recording-http";
import { FRESHNESS_QUESTION, sampleVaultHarness } from "../support/research-harness";
import { objectContaining } from "../support/typed-matchers";
import { MemoryNoteStore } from "../support/memory-note-store";
import { VaultIndex } from "../../src/index/vault-index";

const WEAK_QUESTION = "How do I configure y-websocket authentication with JWT tokens?";
const HELLO_URL = "https://automerge.org/docs/hello/";
const HELLO_NOTE = "Reading/Automerge - Hello (getting started).md";
const RELEASES_URL = "https://github.com/automerge/automerge/releases";

const canonical = (url: string) => canonicalizeUrl(url) ?? url;

/** The part of a trace note between one `## ` heading and the next. */
function noteSection(note: string, heading: string): string {
  const start = note.indexOf(`\n## ${heading}\n`);
  expect(start, `section "${heading}"`).toBeGreaterThanOrEqual(0);
  const end = note.indexOf("\n## ", start + 4);
  return note.slice(start, end === -1 ? undefined : end);
}

function expectSeparated(pack: ResearchPack): void {
  for (const row of pack.evidence) {
    expect(row.kind).toBe("note");
    expect(row.source_type).toBe("vault_note");
    expect(row.source_key).toMatch(/^src:[0-9a-f]{10}$/);
    expect(row.retrieval.lanes.map((l) => l.name)).not.toContain("external_search");
  }
  for (const row of pack.external_evidence) {
    expect(row.kind).toBe("external");
    expect(row.source_type).toBe("external_web");
    expect(row.source_key).toMatch(/^ext:[a-z0-9-]+:[0-9a-f]{10}$/);
  }
  const vaultKeys = new Set(pack.evidence.map((r) => r.source_key));
  expect(pack.external_evidence.filter((r) => vaultKeys.has(r.source_key))).toEqual([]);
}

describe("outside rows carry the external_search lane and the outside-vault label", () => {
  it("every Brave row: lane with provider and store ephemeral, label `Outside vault · Brave · ephemeral`", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" });
    const { pack } = result;

    expect(() => researchPackSchema.parse(pack)).not.toThrow();
    expect(pack.external_evidence.length).toBeGreaterThan(0);
    for (const row of pack.external_evidence) {
      expect(row.provider).toBe("brave");
      expect(row.source_key).toMatch(/^ext:brave:[0-9a-f]{10}$/);
      expect(row.retrieval.lanes).toContainEqual({ name: "external_search", status: "used", provider: "brave", store: "ephemeral" });
      expect(row.label).toBe("Outside vault · Brave · ephemeral");
      // Every outside row says why it is there.
      expect(row.retrieval.signals.length).toBeGreaterThan(0);
    }
    expect(pack.coverage.external_evidence_count).toBe(pack.external_evidence.length);
    expect(pack.coverage.external_by_provider).toEqual([{ key: "brave", count: pack.external_evidence.length }]);
  });

  it("an Exa row is labelled `Outside vault · Exa · ephemeral`", async () => {
    const h = await sampleVaultHarness({ exchanges: replayFile("exa/search-2026-crdt.json") });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "always", providers: ["exa"] });

    expect(result.pack.external_evidence.length).toBeGreaterThan(0);
    for (const row of result.pack.external_evidence) {
      expect(row.label).toBe("Outside vault · Exa · ephemeral");
      expect(row.retrieval.lanes).toContainEqual({ name: "external_search", status: "used", provider: "exa", store: "ephemeral" });
    }
  });

  it("vault rows never appear in external_evidence and outside rows never in evidence — in the pack and in the trace note", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" });
    expectSeparated(result.pack);

    const note = h.store.text(result.trace_path!)!;
    const vault = noteSection(note, "Vault evidence");
    const outside = noteSection(note, "Outside vault");
    expect(vault).toContain(`Vault evidence: ${result.pack.evidence.length} rows`);
    expect(outside).toContain(`Outside vault: ${result.pack.external_evidence.length} rows from Brave`);
    for (const row of result.pack.evidence) {
      expect(vault).toContain(row.source_key);
      expect(outside).not.toContain(row.source_key);
    }
    for (const row of result.pack.external_evidence) {
      expect(outside).toContain(`**Outside vault · Brave · ephemeral** · \`${row.source_key}\``);
      expect(vault).not.toContain(row.source_key);
    }
  });
});

describe("duplicates of local URLs collapse to src: rows", () => {
  it("the demo's automerge.org/docs/hello/ result becomes the vault note's row, also found by Brave", async () => {
    const h = await sampleVaultHarness();
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak" });

    // The premise: Brave did return the page.
    const returned = result.trace.events.filter((e) => e.type === "external_provider_response").flatMap((e) => (e.data?.urls as string[]) ?? []);
    expect(returned).toContain(HELLO_URL);

    expect(result.pack.external_evidence.map((r) => canonical(r.url))).not.toContain(canonical(HELLO_URL));
    const row = result.pack.evidence.find((r) => r.note_path === HELLO_NOTE);
    expect(row?.also_found_by).toEqual(["brave"]);
    const signal = row?.retrieval.signals.find((s) => s.name === "also_found_by");
    expect(signal?.detail).toMatch(/^also found by Brave/);
    // Only that note gained the signal.
    expect(result.pack.evidence.filter((r) => r.also_found_by?.length).map((r) => r.note_path)).toEqual([HELLO_NOTE]);

    const deduped = result.trace.events.filter((e) => e.type === "external_result_deduped" && e.data?.kept === "vault");
    expect(deduped).toContainEqual(objectContaining({ data: objectContaining({ url: HELLO_URL, note: HELLO_NOTE, provider: "brave" }) }));
    expect(noteSection(h.store.text(result.trace_path!)!, "Vault evidence")).toMatch(/Automerge - Hello.*also found by Brave/);
  });

  it("the note gets a vault row even when local retrieval had not found it", async () => {
    const h = await sampleVaultHarness();
    const local = await h.run({ question: WEAK_QUESTION, mode: "never", writeTrace: false });
    expect(local.pack.evidence.map((r) => r.note_path)).not.toContain(HELLO_NOTE);

    const result = await h.run({ question: WEAK_QUESTION, mode: "on-weak" });
    const row = result.pack.evidence.find((r) => r.note_path === HELLO_NOTE);
    expect(row?.source_key).toMatch(/^src:/);
    expect(row?.also_found_by).toEqual(["brave"]);
    expect(result.pack.external_evidence.map((r) => canonical(r.url))).not.toContain(canonical(HELLO_URL));
    expectSeparated(result.pack);
  });

  it("the same URL from Brave and Exa is one row, keyed by the first finder, also found by the other", async () => {
    const h = await sampleVaultHarness({ exchanges: [...replayFolder(), ...replayFile("exa/search-2026-crdt.json")] });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak", providers: ["brave", "exa"] });

    // The premise: both providers answered with that page.
    const byProvider = result.trace.events
      .filter((e) => e.type === "external_provider_response" && (e.data?.urls as string[] | undefined)?.includes(RELEASES_URL))
      .map((e) => e.data?.provider);
    expect(new Set(byProvider)).toEqual(new Set(["brave", "exa"]));

    const rows = result.pack.external_evidence.filter((r) => canonical(r.url) === canonical(RELEASES_URL));
    expect(rows).toHaveLength(1);
    expect(rows[0].source_key).toMatch(/^ext:brave:/);
    expect(rows[0].provider).toBe("brave");
    expect(rows[0].also_found_by).toEqual(["exa"]);
    expect(rows[0].retrieval.signals.map((s) => s.name)).toContain("several_providers");
    // Exa's other pages are there, under Exa's own label.
    expect(result.pack.external_evidence.some((r) => r.provider === "exa" && r.label === "Outside vault · Exa · ephemeral")).toBe(true);
    expectSeparated(result.pack);
  });
});

describe("the run's count of outside URLs", () => {
  it("keeps the rows to the count, and the trace says how many more were left out for it", async () => {
    const h = await sampleVaultHarness({ exchanges: [...replayFolder(), ...replayFile("exa/search-2026-crdt.json")] });
    const result = await h.run({ question: FRESHNESS_QUESTION, mode: "on-weak", providers: ["brave", "exa"], count: 2, writeTrace: false });
    const { events } = result.trace;

    // Pages the web gave that the vault does not hold: more than the count (the premise).
    const answered = new Set(events.filter((e) => e.type === "external_provider_response").flatMap((e) => (e.data?.urls as string[]).map(canonical)));
    const inVault = new Set(events.filter((e) => e.type === "external_result_deduped" && e.data?.kept === "vault").map((e) => canonical(e.data?.url as string)));
    const candidates = [...answered].filter((url) => !inVault.has(url)).length;
    expect(candidates).toBeGreaterThan(2);
    expect(result.pack.external_evidence).toHaveLength(2);
    const normalize = events.find((e) => e.type === "normalize");
    expect(normalize?.data?.detail).toMatch(new RegExp(`; ${candidates - 2} more left out \\(2 at most\\)$`));
  });
});

describe("the same page from the run's two queries", () => {
  /** A web result as the dispatcher merges one query's answers. */
  function found(provider: ProviderName, url: string, rank: number): MergedResult {
    const canonicalUrl = canonical(url);
    const merge = { value: 1 / rank, normalised: 1 / rank, weight: 1, basis: "rank" as const };
    return { url, canonicalUrl, title: `Page ${rank}`, domain: new URL(url).hostname, snippet: "Automerge release notes.", highlights: [], rank, provider, providerLabel: provider, alsoFoundBy: [], providerRank: rank, merge };
  }
  const options = { count: 5, tokenBudget: 8192, now: Date.UTC(2026, 0, 1) };

  it("is one row that says the second query's provider found it too (it kept only the first finder)", async () => {
    const h = await sampleVaultHarness();
    // Query one: Brave found the releases page; query two: Exa found it.
    const results = [found("brave", RELEASES_URL, 1), found("exa", "https://example.org/other", 1), found("exa", RELEASES_URL, 2)];
    const outside = await buildOutsideEvidence(results, planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, options);

    const rows = outside.rows.filter((r) => canonical(r.url) === canonical(RELEASES_URL));
    expect(rows).toHaveLength(1);
    expect(rows[0].provider).toBe("brave");
    expect(rows[0].also_found_by).toEqual(["exa"]);
    expect(rows[0].retrieval.signals.map((s) => s.name)).toContain("several_providers");
    expect(results[0].alsoFoundBy).toEqual([]);
  });

  it("held by a vault note: both times the note keeps it, as the trace says (it said a web row kept the second)", async () => {
    const h = await sampleVaultHarness();
    const results = [found("brave", HELLO_URL, 1), found("exa", HELLO_URL, 1)];
    const outside = await buildOutsideEvidence(results, planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, options);

    expect(outside.rows).toEqual([]);
    expect(outside.decisions).toEqual([
      { url: HELLO_URL, provider: "brave", kind: "local_source", note_path: HELLO_NOTE },
      { url: HELLO_URL, provider: "exa", kind: "local_source", note_path: HELLO_NOTE },
    ]);
    expect(outside.vaultRows.find((r) => r.note_path === HELLO_NOTE)?.also_found_by).toEqual(["brave", "exa"]);
  });
});

describe("a vault row added because a web result is the note's source", () => {
  const PAGE = "https://example.org/crdt-bench";
  const NOTE = [
    "---",
    `source: ${PAGE}`,
    "---",
    "# Sync benchmark",
    "",
    "Simulated 2,000 observations with 5 edits each,",
    "typed by 4 devices, merged in random order.",
    "",
    "| Library | Saved document |",
    "|---|---|",
    "| Yjs | 1.3 MB |",
    "| Automerge | 1.9 MB |",
    "",
  ].join("\n");

  async function sourceRow(question: string) {
    const store = new MemoryNoteStore({ "Sync benchmark.md": NOTE, "Other.md": "# Other\n\nNothing about it.\n" });
    const index = new VaultIndex({ canonicalizeUrl });
    await index.sync(store, null);
    const merge = { value: 1, normalised: 1, weight: 1, basis: "rank" as const };
    const result: MergedResult = { url: PAGE, canonicalUrl: canonical(PAGE), title: "Bench", domain: "example.org", snippet: "", highlights: [], rank: 1, provider: "brave", providerLabel: "Brave", alsoFoundBy: [], providerRank: 1, merge };
    const outside = await buildOutsideEvidence([result], planQuestion(question), [], index, store, { count: 5, tokenBudget: 8192, now: Date.UTC(2026, 0, 1) });
    const row = outside.vaultRows.find((r) => r.note_path === "Sync benchmark.md");
    expect(row).toBeDefined();
    return row!;
  }

  it("quotes the note as search shows it: a hand-wrapped paragraph on one line, each table row a line, the question's words marked", async () => {
    const row = await sourceRow("How many edits did the simulated devices make?");
    const section = row.sections[0];
    // The line the writer wrapped by hand is no block break; the table's rows are.
    expect(section.text).toContain("with 5 edits each, typed by 4 devices");
    expect(section.text.split("\n").filter((line) => line.includes("MB"))).toHaveLength(2);
    const marked = (section.highlights ?? []).map(([start, end]) => section.text.slice(start, end).toLowerCase());
    expect(marked).toContain("edits");
    expect(row.retrieval.matched_terms).toContain("edits");
  });

  it("a note that holds none of the question's words still quotes its opening with its blocks apart, and says the words are missing", async () => {
    const row = await sourceRow("Which zeppelin airships flew?");
    const section = row.sections[0];
    expect(section.text).toContain("with 5 edits each, typed by 4 devices");
    expect(section.text).toMatch(/merged in random order\.\n/);
    expect(section.highlights).toEqual([]);
    expect(row.retrieval.matched_terms).toEqual([]);
    expect(row.retrieval.missing_terms.length).toBeGreaterThan(0);
  });
});

describe("vault rows added for notes whose sources the web returned", () => {
  it("each says the place it takes: the second is row 2, not row 1 again", async () => {
    const h = await sampleVaultHarness();
    const merge = { value: 1, normalised: 1, weight: 1, basis: "rank" as const };
    const page = (url: string, rank: number): MergedResult => ({ url, canonicalUrl: canonical(url), title: `Page ${rank}`, domain: new URL(url).hostname, snippet: "", highlights: [], rank, provider: "brave", providerLabel: "Brave", alsoFoundBy: [], providerRank: rank, merge });
    const yjs = "https://docs.yjs.dev/getting-started/working-with-shared-types";
    const outside = await buildOutsideEvidence([page(HELLO_URL, 1), page(yjs, 2)], planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, { count: 5, tokenBudget: 8192, now: Date.UTC(2026, 0, 1) });
    const said = outside.vaultRows.map((r) => r.retrieval.signals.find((s) => s.name === "source_url")?.detail);
    expect(said).toEqual(["added as vault row 1: a web result is this note's source", "added as vault row 2: a web result is this note's source"]);
  });
});

describe("an outside row's text cut to the run's budget", () => {
  it("is never cut inside a character written as two UTF-16 units (half of one is no character in the note nor valid UTF-8 in the JSON)", async () => {
    const h = await sampleVaultHarness();
    const merge = { value: 1, normalised: 1, weight: 1, basis: "rank" as const };
    // 400 characters a row at the smallest budget: the cut falls between the halves of the emoji.
    const snippet = `${"a".repeat(398)}\u{1F600} and more words after it`;
    const url = "https://example.org/emoji";
    const result: MergedResult = { url, canonicalUrl: canonical(url), title: "Emoji", domain: "example.org", snippet, highlights: [], rank: 1, provider: "brave", providerLabel: "Brave", alsoFoundBy: [], providerRank: 1, merge };
    const outside = await buildOutsideEvidence([result], planQuestion(FRESHNESS_QUESTION), [], h.index, h.store, { count: 1, tokenBudget: 1, now: Date.UTC(2026, 0, 1) });
    const [section] = outside.rows[0].content_sections;
    expect(section.truncated).toBe(true);
    expect(section.text.endsWith("…")).toBe(true);
    expect(section.text.length).toBeLessThanOrEqual(400);
    // A first half with no second after it.
    expect(section.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});

describe("a web result whose page a vault note names as its source, when that note has nothing to quote", () => {
  const merge = { value: 1, normalised: 1, weight: 1, basis: "rank" as const };
  const page = (url: string): MergedResult => ({ url, canonicalUrl: canonical(url), title: "Saved page", domain: "example.org", snippet: "What the page says.", highlights: [], rank: 1, provider: "brave", providerLabel: "Brave", alsoFoundBy: [], providerRank: 1, merge });
  const options = { count: 5, tokenBudget: 8192, now: Date.UTC(2026, 0, 1) };

  async function vaultOf(notes: Record<string, string>) {
    const store = new MemoryNoteStore(notes);
    const index = new VaultIndex({ canonicalizeUrl });
    await index.sync(store, null);
    return { store, index };
  }

  it("a bookmark (properties only) is still the vault's row for it", async () => {
    const { store, index } = await vaultOf({ "Bookmark.md": "---\nsource: https://example.org/saved\n---\n", "Other.md": "# Other\n\nZeppelins.\n" });
    const outside = await buildOutsideEvidence([page("https://example.org/saved")], planQuestion("Which zeppelin airships flew?"), [], index, store, options);
    expect(outside.vaultRows.map((r) => r.note_path)).toEqual(["Bookmark.md"]);
    expect(outside.rows).toEqual([]);
  });

  it("a note gone since it was indexed leaves the page to the web: an outside row, not nothing at all", async () => {
    const { store, index } = await vaultOf({ "Saved.md": "---\nsource: https://example.org/saved\n---\n# Saved\n\nNotes on the page.\n", "Other.md": "# Other\n\nZeppelins.\n" });
    store.files.delete("Saved.md");
    const outside = await buildOutsideEvidence([page("https://example.org/saved")], planQuestion("Which zeppelin airships flew?"), [], index, store, options);
    expect(outside.vaultRows).toEqual([]);
    expect(outside.rows.map((r) => r.url)).toEqual(["https://example.org/saved"]);
    expect(outside.decisions).toEqual([]);
  });
});

