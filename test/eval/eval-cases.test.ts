import { describe, expect, it } from "vitest";
import { checkEvalCase, notePathsOf, parseEvalCases, providerHosts, type EvalCase, type EvalObservation, type EvalRequest } from "../../src/eval/eval-cases";
import { noteSourceKey, outsideSourceKey } from "../../src/evidence/keys";
import { defaultSettings } from "../../src/settings";
import { outsideRow, pack, vaultRow } from "../support/pack-fixtures";

const hosts = providerHosts(defaultSettings());

function oneCase(c: Record<string, unknown>): EvalCase {
  const parsed = parseEvalCases({ cases: [{ id: "c1", question: "Why Automerge?", ...c }] });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.cases[0];
}

function problemOf(raw: unknown): string {
  const parsed = parseEvalCases(raw);
  if (parsed.ok) throw new Error("expected the cases file to be refused");
  return parsed.error.message;
}

const automerge = vaultRow("Libraries/Automerge.md", "Automerge", [{ heading: "Releases", text: "Automerge 2.0 moved the core to Rust." }]);
const hello = { ...vaultRow("Reading/Automerge - Hello.md", "Hello", [{ heading: "", text: "Getting started." }]), also_found_by: ["brave"] };
const releases = outsideRow("brave", "https://github.com/automerge/automerge/releases", "Releases", "automerge 3.1.0");

function observed(over: Partial<EvalObservation> = {}): EvalObservation {
  return {
    pack: pack("Why Automerge?", [automerge, hello], [releases]),
    stop_reason: "enough_evidence",
    answer: { kind: "extractive", verified: true },
    citations: [
      { source_key: automerge.source_key, origin: "vault", note_path: automerge.note_path },
      { source_key: releases.source_key, origin: "outside_vault", provider: "brave", url: releases.url },
    ],
    verification: { passed: true, errors: [] },
    requests: [],
    ...over,
  };
}

const braveCall: EvalRequest = { method: "GET", url: "https://api.search.brave.com/res/v1/llm/context?q=x", channel: "web", outcome: "answered", status: 200 };

describe("reading a cases file", () => {
  it("fills defaults: never mode, no retrieval-only", () => {
    const c = oneCase({ expect: { no_requests: true } });
    expect(c.mode).toBe("never");
    expect(c.retrieval_only).toBe(false);
  });

  it("names the case and the field of a misspelt expectation", () => {
    expect(problemOf({ cases: [{ id: "ok", question: "q", expect: { no_requests: true } }, { id: "typo", question: "q", expect: { verdikt: "enough_evidence" } }] })).toMatch(
      /^case "typo" \(#2\), field expect: .*verdikt/,
    );
  });

  it("names a case without an id by its position", () => {
    expect(problemOf({ cases: [{ question: "q", expect: { no_requests: true } }] })).toMatch(/^case #1, field id:/);
  });

  it("refuses a bad verdict, mode, provider, key and note path with the field's path", () => {
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { verdict: "enough" } }] })).toContain("field expect.verdict:");
    expect(problemOf({ cases: [{ id: "a", question: "q", mode: "sometimes", expect: { no_requests: true } }] })).toContain("field mode:");
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { providers: ["google"] } }] })).toContain("field expect.providers.0:");
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { source_keys: ["src:xyz"] } }] })).toContain("field expect.source_keys.0: expected a source key");
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { note_paths: ["Libraries/Yjs"] } }] })).toContain("ending in .md");
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { also_found_by: { Yjs: ["brave"] } } }] })).toContain("field expect.also_found_by.Yjs: bad key: expected a vault-relative note path");
  });

  it("refuses a note path the vault would never name so: outside it, or with '.', '..', '//' or '\\' in it", () => {
    for (const bad of ["../README.md", "Libraries/../Libraries/Yjs.md", "./Libraries/Yjs.md", "Libraries//Yjs.md", "Libraries\\Yjs.md"]) {
      expect(problemOf({ cases: [{ id: "a", question: "q", expect: { note_paths: [bad] } }] })).toContain("field expect.note_paths.0: expected a note path as the vault names it");
    }
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { forbidden_note_paths: ["../x.md"] } }] })).toContain("field expect.forbidden_note_paths.0:");
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { also_found_by: { "../x.md": ["brave"] } } }] })).toContain("field expect.also_found_by.../x.md: bad key:");
    // A dot inside a name is a name.
    expect(oneCase({ expect: { note_paths: ["Reading/v1.2 notes..md", ".hidden/a.md"] } }).expect.note_paths).toHaveLength(2);
  });

  it("refuses a case that asserts nothing, since it could never fail", () => {
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: {} }] })).toContain("no expectations");
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { note_paths: [], counts: {} } }] })).toContain("no expectations");
  });

  it("accepts providers: [] as the assertion that no outside rows came back", () => {
    expect(oneCase({ expect: { providers: [] } }).expect.providers).toEqual([]);
  });

  it("refuses duplicate ids and contradictory expectations", () => {
    const twice = { id: "same", question: "q", expect: { no_requests: true } };
    expect(problemOf({ cases: [twice, twice] })).toBe('case "same" (#2), field id: the same id is used by an earlier case');
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { verdict: "no_evidence", verdict_in: ["no_evidence"] } }] })).toContain("not both");
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { counts: { vault_min: 3, vault_max: 1 } } }] })).toContain("vault_min is above vault_max");
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { note_paths: ["A.md"], forbidden_note_paths: ["A.md"] } }] })).toContain("both expected and forbidden");
  });

  it("refuses a file that is not { cases: [...] }", () => {
    expect(problemOf([{ id: "a" }])).toContain("(top level): this is a list, not a research cases file");
    expect(problemOf("cases")).toContain("(top level)");
    expect(problemOf({ cases: [] })).toContain("at least one case");
    expect(problemOf({ cases: [{ id: "a", question: "q", expect: { no_requests: true } }], extra: 1 })).toContain(`"extra"`);
  });

  it("lists every note path a case names, with its field", () => {
    const c = oneCase({ expect: { note_paths: ["A.md"], cited_note_paths: ["B.md"], also_found_by: { "C.md": ["brave"] } } });
    expect(notePathsOf(c)).toEqual([
      { field: "expect.note_paths", path: "A.md" },
      { field: "expect.cited_note_paths", path: "B.md" },
      { field: "expect.also_found_by", path: "C.md" },
    ]);
  });
});

describe("checking a run against a case", () => {
  it("passes when every expectation holds", () => {
    const c = oneCase({
      expect: {
        note_paths: ["Libraries/Automerge.md"],
        source_keys: [noteSourceKey("Libraries/Automerge.md"), releases.source_key],
        external_urls: ["https://github.com/automerge/automerge/releases/"],
        providers: ["brave"],
        counts: { vault_min: 2, vault_max: 2, outside_min: 1, outside_max: 1 },
        verdict: "enough_evidence",
        stop_reason: "enough_evidence",
        citation_keys: [releases.source_key],
        cited_note_paths: ["Libraries/Automerge.md"],
        cited_urls: ["https://github.com/automerge/automerge/releases"],
        answer_verified: true,
        answer_kind: "extractive",
        also_found_by: { "Reading/Automerge - Hello.md": ["brave"] },
        forbidden_provider_calls: ["exa"],
      },
    });
    expect(checkEvalCase(c, observed({ requests: [braveCall] }), hosts)).toEqual([]);
  });

  it("says which expected note is missing and what the evidence was instead", () => {
    const failures = checkEvalCase(oneCase({ expect: { note_paths: ["Libraries/Yjs.md"] } }), observed(), hosts);
    expect(failures).toEqual(['expected "Libraries/Yjs.md" in vault evidence; vault evidence was "Libraries/Automerge.md", "Reading/Automerge - Hello.md"']);
  });

  it("fails forbidden notes, keys and outside URLs that showed up", () => {
    const c = oneCase({
      expect: {
        forbidden_note_paths: ["Reading/Automerge - Hello.md"],
        forbidden_source_keys: [releases.source_key],
        forbidden_external_urls: ["https://github.com/automerge/automerge/releases"],
      },
    });
    const failures = checkEvalCase(c, observed(), hosts);
    expect(failures).toHaveLength(3);
    expect(failures[0]).toBe('"Reading/Automerge - Hello.md" is forbidden but was vault evidence (row 2)');
  });

  it("compares the providers of outside rows as a set", () => {
    expect(checkEvalCase(oneCase({ expect: { providers: ["brave", "exa"] } }), observed(), hosts)).toEqual([
      'expected outside-vault rows from "brave", "exa"; they came from "brave"',
    ]);
    expect(checkEvalCase(oneCase({ expect: { providers: [] } }), observed(), hosts)).toEqual(['expected outside-vault rows from no provider; they came from "brave"']);
  });

  it("checks counts, verdicts, stop reasons and warnings", () => {
    const c = oneCase({ expect: { counts: { vault_max: 1, outside_min: 2 }, verdict_in: ["weak_evidence", "no_evidence"], stop_reason: "weak_evidence", warning_kinds: ["provider_rate_limited"] } });
    expect(checkEvalCase(c, observed(), hosts)).toEqual([
      "expected at most 1 vault evidence rows; got 2",
      "expected at least 2 outside-vault rows; got 1",
      "verdict: expected one of weak_evidence, no_evidence, got enough_evidence (test)",
      "stop_reason: expected weak_evidence, got enough_evidence",
      'expected a "provider_rate_limited" warning; warnings were none',
    ]);
  });

  it("fails no_requests on any request, model calls included", () => {
    const model: EvalRequest = { method: "POST", url: "http://127.0.0.1:9/v1/chat/completions", channel: "model", outcome: "answered", status: 200 };
    expect(checkEvalCase(oneCase({ expect: { no_requests: true } }), observed({ requests: [model] }), hosts)).toEqual([
      'expected no requests; 1 left: "POST http://127.0.0.1:9/v1/chat/completions"',
    ]);
  });

  it("treats a forbidden provider as its API host, and brave-web as Brave's host too", () => {
    const failures = checkEvalCase(oneCase({ expect: { forbidden_provider_calls: ["brave-web", "exa", "github.com"] } }), observed({ requests: [braveCall] }), hosts);
    expect(failures).toEqual(['brave-web must receive no request; it got 1: "GET https://api.search.brave.com/res/v1/llm/context"']);
  });

  it("follows a proxy base URL from settings when naming a provider's host", () => {
    const settings = defaultSettings();
    settings.external.brave.baseUrl = "https://brave-proxy.example.net";
    const proxied = { ...braveCall, url: "https://brave-proxy.example.net/res/v1/llm/context" };
    expect(checkEvalCase(oneCase({ expect: { forbidden_provider_calls: ["brave"] } }), observed({ requests: [proxied] }), providerHosts(settings))).toHaveLength(1);
  });

  it("always fails a web request that had no replay folder or no recording, whatever the case expects", () => {
    const refused: EvalRequest = { ...braveCall, outcome: "refused_offline" };
    const missed: EvalRequest = { ...braveCall, url: "https://api.exa.ai/search", method: "POST", outcome: "replay_miss" };
    const failures = checkEvalCase(oneCase({ expect: { verdict: "enough_evidence" } }), observed({ requests: [refused, missed] }), hosts);
    expect(failures[0]).toMatch(/^needed the web but has no replay folder: GET https:\/\/api\.search\.brave\.com\/res\/v1\/llm\/context was not sent/);
    expect(failures[1]).toBe("no recording answers POST https://api.exa.ai/search (add one to the replay folder)");
  });

  it("checks citations by key, note path and URL", () => {
    const yjsKey = noteSourceKey("Libraries/Yjs.md");
    const exaKey = outsideSourceKey("exa", "https://docs.yjs.dev");
    const c = oneCase({ expect: { citation_keys: [exaKey], cited_note_paths: ["Libraries/Yjs.md"], cited_urls: ["https://docs.yjs.dev/"] } });
    const failures = checkEvalCase(c, observed(), hosts);
    expect(failures).toHaveLength(3);
    expect(failures[1]).toBe(`expected the answer to cite "Libraries/Yjs.md" (${yjsKey}); it cited ${automerge.source_key}, ${releases.source_key}`);
  });

  it("reports an unverified answer with its errors, and a missing answer as such", () => {
    const unverified = observed({ answer: { kind: "model", verified: false }, verification: { passed: false, errors: [{ message: "Unknown key src:0000000000" }] } });
    expect(checkEvalCase(oneCase({ expect: { answer_verified: true, answer_kind: "extractive" } }), unverified, hosts)).toEqual([
      "answer_verified: expected true, got false (Unknown key src:0000000000)",
      "answer_kind: expected extractive, got model",
    ]);
    const none = observed({ answer: undefined, stop_reason: "retrieval_only" });
    expect(checkEvalCase(oneCase({ expect: { answer_verified: true } }), none, hosts)).toEqual(["answer_verified: expected true, but no answer was written (retrieval_only)"]);
    expect(checkEvalCase(oneCase({ expect: { answer_kind: "none" } }), none, hosts)).toEqual([]);
  });

  it("checks that a note was also found by the named providers", () => {
    const c = oneCase({ expect: { also_found_by: { "Reading/Automerge - Hello.md": ["brave", "brave-web"], "Libraries/Yjs.md": ["brave"] } } });
    expect(checkEvalCase(c, observed(), hosts)).toEqual([
      'also_found_by: expected "Reading/Automerge - Hello.md" to be also found by brave-web; it was also found by "brave"',
      'also_found_by: "Libraries/Yjs.md" is not in vault evidence',
    ]);
  });
});
