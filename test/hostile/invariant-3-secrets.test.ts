// DESIGN invariant 3: API keys live in secret storage (CLI: the environment); never in data.json,
// traces, notes, logs or error messages. The attacks: model servers and providers on 127.0.0.1
// that echo the key they were sent — in an error inside a 200, in the answer, in the `model`
// field, JSON-\u-escaped, percent-encoded, base64-encoded, in a 401 or an HTML error page — and
// recorded provider bodies carrying the key. Every output is searched: stdout, stderr, --json,
// the trace note, every file in the vault and the cache, and the replay log.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  braveBody,
  braveReplay,
  cli,
  bareCli,
  completion,
  config,
  everyOutput,
  filesUnder,
  firstAdmittedKey,
  hostileServer,
  KEYS,
  modelFlag,
  sandboxEachTest,
  traceNotes,
  VAULT_QUESTION,
  WEB_QUESTION,
  whereFound,
  type Answer,
} from "./hostile-kit";

const MODEL_KEY = KEYS.OPENAI_API_KEY;
const jsonEscaped = (text: string) => Array.from(text, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
const base64 = (text: string) => Buffer.from(text).toString("base64");
/** Every character percent-encoded, as no encoder would but an attacker may. */
const percentEncoded = (text: string) => Array.from(Buffer.from(text), (b) => `%${b.toString(16).toUpperCase()}`).join("");

const place = sandboxEachTest();

/** A research run with a hostile model server; returns every output with the key's forms searched. */
async function researchWithModel(answer: Answer, extra: string[] = []) {
  place.server = await hostileServer(answer);
  const text = await cli(place.box, ["research", VAULT_QUESTION, "--trace", ...modelFlag(place.server), ...extra], { OPENAI_API_KEY: MODEL_KEY });
  const json = await cli(place.box, ["research", VAULT_QUESTION, "--trace", ...modelFlag(place.server), "--json", ...extra], { OPENAI_API_KEY: MODEL_KEY });
  expect(place.server.requests.length).toBeGreaterThan(0);
  expect(place.server.requests[0].headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
  return { text, json, outputs: { ...everyOutput(place.box, text), "--json stdout": json.out, "--json stderr": json.err } };
}

describe("a model server that echoes the key never gets it into an output", () => {
  const attacks: [string, Answer][] = [
    ["an error inside a 200", () => ({ body: { error: { message: `invalid key ${MODEL_KEY} for this model` } } })],
    ["a JSON-\\u-escaped error inside a 200", () => ({ body: `{"error":{"message":"key ${jsonEscaped(MODEL_KEY)} refused"}}`, headers: { "content-type": "application/json" } })],
    ["the answer text", (req) => ({ body: completion(`Yjs lost on history [${firstAdmittedKey(req)}]. Your key is ${MODEL_KEY}.`) })],
    ["the model field", (req) => ({ body: completion(`Automerge keeps history [${firstAdmittedKey(req)}].`, MODEL_KEY) })],
    ["a base64 Basic credential in the answer", (req) => ({ body: completion(`Use Authorization: Basic ${base64(`me:${MODEL_KEY}`)} [${firstAdmittedKey(req)}].`) })],
    ["a percent-encoded key in a link", (req) => ({ body: completion(`See https://evil.example/?k=${percentEncoded(MODEL_KEY)} [${firstAdmittedKey(req)}].`) })],
    ["a 401 that quotes the key", () => ({ status: 401, body: { error: { message: `Incorrect API key provided: ${MODEL_KEY}` } } })],
    ["an HTML error page", () => ({ status: 500, body: `<html><body><h1>Error</h1><p>token=${MODEL_KEY}</p></body></html>` })],
    ["a 200 that is not JSON", () => ({ status: 200, body: `upstream said: ${MODEL_KEY}` })],
  ];

  for (const [what, answer] of attacks) {
    it(`in ${what}`, async () => {
      const { text, json, outputs } = await researchWithModel(answer);
      expect(text.code).toBe(0);
      expect(json.code).toBe(0);
      expect(traceNotes(place.box).length).toBe(2);
      for (const form of [MODEL_KEY, MODEL_KEY.slice(0, 12), jsonEscaped(MODEL_KEY), percentEncoded(MODEL_KEY), base64(`me:${MODEL_KEY}`)]) {
        expect(whereFound(form, outputs), `found ${form}`).toEqual([]);
      }
    });
  }

  it("still shows what the server said, with the key replaced", async () => {
    const { text } = await researchWithModel(() => ({ body: { error: { message: `invalid key ${MODEL_KEY}` } } }));
    expect(text.out).toContain("invalid key [redacted]");
  });
});

describe("a provider that echoes its key never gets it into an output", () => {
  /** Brave on 127.0.0.1: the key it was sent comes back in titles, snippets, URLs and errors. */
  async function hostileBrave(answer: (key: string) => { status?: number; body: object | string }) {
    place.server = await hostileServer((req) => answer(String(req.headers["x-subscription-token"] ?? "")));
    const settings = config(place.box, { external: { enabled: true, providers: ["brave"], brave: { baseUrl: place.server.url } } });
    // No replay log here: these runs reach the stand-in server, and the log records only replayed requests.
    const env = { BRAVE_SEARCH_API_KEY: KEYS.BRAVE_SEARCH_API_KEY };
    const runs = [
      await cli(place.box, ["research", WEB_QUESTION, "--trace", "--external-search", "always", "--config", settings], env),
      await cli(place.box, ["research", WEB_QUESTION, "--trace", "--external-search", "always", "--config", settings, "--json"], env),
      await bareCli(place.box, ["websearch", WEB_QUESTION, "--external-provider", "brave", "--config", settings], env),
      await bareCli(place.box, ["websearch", WEB_QUESTION, "--external-provider", "brave", "--config", settings, "--json"], env),
    ];
    expect(place.server.requests.length).toBeGreaterThan(0);
    const outputs: Record<string, string> = everyOutput(place.box, runs[0]);
    runs.forEach((r, i) => Object.assign(outputs, { [`run ${i} stdout`]: r.out, [`run ${i} stderr`]: r.err }));
    return { runs, outputs };
  }

  const forms = (key: string) => [key, key.slice(0, 12), jsonEscaped(key), percentEncoded(key), base64(key).slice(2, 20)];

  it("in result titles, snippets and URLs, raw, percent-encoded and base64", async () => {
    const { outputs } = await hostileBrave((key) => ({
      body: braveBody([
        { url: `https://evil.example/leak?k=${percentEncoded(key)}`, title: `Automerge release ${key}`, snippets: [`Automerge 3 release notes mention ${key} and ${base64(key)} in the latest release.`] },
      ]),
    }));
    for (const form of forms(KEYS.BRAVE_SEARCH_API_KEY)) expect(whereFound(form, outputs), `found ${form}`).toEqual([]);
  });

  it("JSON-\\u-escaped in a 200 body, which JSON.parse turns back into the key", async () => {
    const { outputs } = await hostileBrave((key) => ({
      body: `{"grounding":{"generic":[{"url":"https://evil.example/a","title":"Automerge latest release ${jsonEscaped(key)}","snippets":["The latest Automerge release ${jsonEscaped(key)} changed things."]}]}}`,
    }));
    for (const form of forms(KEYS.BRAVE_SEARCH_API_KEY)) expect(whereFound(form, outputs), `found ${form}`).toEqual([]);
  });

  it("in a 401 that quotes the key", async () => {
    const { runs, outputs } = await hostileBrave((key) => ({ status: 401, body: { type: "ErrorResponse", error: { code: "SUBSCRIPTION_TOKEN_INVALID", detail: `The token ${key} is invalid.`, status: 401 } } }));
    expect(runs[0].out).toContain("Vault evidence");
    for (const form of forms(KEYS.BRAVE_SEARCH_API_KEY)) expect(whereFound(form, outputs), `found ${form}`).toEqual([]);
  });
});

describe("recorded provider bodies carrying a key", () => {
  /** A recorded exchange whose body is JSON text in which the key is \u-escaped: the provider's own hiding misses it. */
  function escapedExchange(method: string, url: string, body: object, key: string): string {
    return JSON.stringify({ method, url, status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(body).split(key).join(jsonEscaped(key)) });
  }

  it("do not get the GitHub token or the Tavily key into an output or the replay log", async () => {
    const replay = path.join(place.box.dir, "replay");
    place.box.write("replay/github.json", escapedExchange("GET", "https://api.github.com/search/repositories", {
      total_count: 1,
      items: [{ full_name: `automerge/${KEYS.GITHUB_TOKEN}`, html_url: `https://github.com/hostile/${KEYS.GITHUB_TOKEN}`, description: `latest Automerge release token ${KEYS.GITHUB_TOKEN}`, stargazers_count: 1, updated_at: "2025-09-01T00:00:00Z" }],
    }, KEYS.GITHUB_TOKEN));
    place.box.write("replay/tavily.json", escapedExchange("POST", "https://api.tavily.com/search", {
      results: [{ url: "https://evil.example/t", title: `Automerge release ${KEYS.TAVILY_API_KEY}`, content: `The latest Automerge release; key ${KEYS.TAVILY_API_KEY}.`, score: 0.9 }],
    }, KEYS.TAVILY_API_KEY));
    const env = { GITHUB_TOKEN: KEYS.GITHUB_TOKEN, TAVILY_API_KEY: KEYS.TAVILY_API_KEY, VAULT_RESEARCH_REPLAY_LOG: path.join(place.box.dir, "requests.log") };
    const args = ["--external-search", "always", "--external-provider", "github", "--external-provider", "tavily", "--replay", replay];
    const text = await cli(place.box, ["research", WEB_QUESTION, "--trace", ...args], env);
    const json = await cli(place.box, ["research", WEB_QUESTION, "--trace", ...args, "--json"], env);
    expect(text.code).toBe(0);
    expect(text.out).toContain("Outside vault · Tavily");
    expect(readFileSync(path.join(place.box.dir, "requests.log"), "utf8")).toContain("api.tavily.com");
    const outputs = { ...everyOutput(place.box, text), json: json.out, jsonErr: json.err };
    for (const key of [KEYS.GITHUB_TOKEN, KEYS.TAVILY_API_KEY]) expect(whereFound(key, outputs), `found ${key}`).toEqual([]);
  });
});

describe("other commands", () => {
  it("search does not print a key that a note of the vault happens to hold", async () => {
    place.box.write("vault/Scratch/Keys.md", `# Keys\n\nAutomerge notes with the OpenAI key ${MODEL_KEY} pasted in by mistake.\n`);
    const run = await cli(place.box, ["search", "Automerge OpenAI key pasted"], { OPENAI_API_KEY: MODEL_KEY });
    expect(run.out).toContain("Keys");
    expect(run.out).not.toContain(MODEL_KEY);
  });

  it("promote does not write a key the page echoes into the source note", async () => {
    const key = KEYS.EXA_API_KEY;
    const replay = braveReplay(place.box, braveBody([{ url: "https://news.example.org/release", title: "Automerge latest release", snippets: ["The latest Automerge release adds compaction."] }]));
    const run = await cli(place.box, ["research", WEB_QUESTION, "--trace", "--external-search", "always", "--replay", replay, "--json"]);
    const json = JSON.parse(run.out) as { trace_path: string; pack: { external_evidence: { source_key: string }[] } };
    place.box.write("pages/page.json", JSON.stringify({
      method: "GET",
      url: "https://news.example.org/release",
      status: 200,
      headers: { "content-type": "text/html" },
      body: `<html><head><title>Release ${key}</title></head><body><article><h1>Release</h1><p>${"Automerge release text. ".repeat(20)} Your key: ${key}. Again: ${encodeURIComponent(key)}.</p></article></body></html>`,
    }));
    const promoted = await cli(place.box, ["promote", "--trace", json.trace_path, "--source-key", json.pack.external_evidence[0].source_key, "--replay", path.join(place.box.dir, "pages"), "--json"], { EXA_API_KEY: key });
    expect(JSON.parse(promoted.out)).toMatchObject({ status: "created" });
    expect(whereFound(key, everyOutput(place.box, promoted))).toEqual([]);
  });

  it("a failed run's error message does not carry the key", async () => {
    const run = await cli(place.box, ["research", VAULT_QUESTION, "--trace", "--model", `openai:hostile@http://127.0.0.1:9/v1`, "--config", path.join(place.box.dir, `${MODEL_KEY}.json`)], { OPENAI_API_KEY: MODEL_KEY });
    expect(run.code).toBe(2);
    expect(run.err).toContain("[redacted]");
    expect(run.err).not.toContain(MODEL_KEY);
  });
});

describe("a key of the environment typed into the question", () => {
  // The run never looks this key up (no web search, or another source): only the process knows it.
  const KEY = KEYS.BRAVE_SEARCH_API_KEY;
  const env = { BRAVE_SEARCH_API_KEY: KEY, GITHUB_TOKEN: KEYS.GITHUB_TOKEN };
  /** Every file's path under the sandbox: a note's name is an output too. */
  const fileNames = () => filesUnder(place.box.dir).map((f) => path.relative(place.box.dir, f.file)).join("\n");
  const queryLog = () => filesUnder(place.box.cache).filter((f) => f.file.endsWith("query-log.jsonl")).map((f) => f.text).join("");

  it("reaches neither the trace note, its name, the kept trace nor the query log of a local research run", async () => {
    const question = `why did we choose Automerge ${KEY} over Yjs`;
    const noted = await cli(place.box, ["research", question, "--trace", "--json"], env);
    const kept = await cli(place.box, ["research", `${question} ${KEYS.GITHUB_TOKEN}`], env);
    expect(noted.code).toBe(0);
    expect(kept.code).toBe(0);
    expect(traceNotes(place.box).length).toBe(1);
    expect(queryLog()).toContain("[redacted]");
    const outputs = { ...everyOutput(place.box, noted), keptOut: kept.out, keptErr: kept.err, "file names": fileNames() };
    // Lower-cased too: planning lower-cases the question's words.
    for (const key of [KEY, KEY.toLowerCase(), KEY.slice(0, 12), KEYS.GITHUB_TOKEN, KEYS.GITHUB_TOKEN.toLowerCase()]) expect(whereFound(key, outputs), `found ${key}`).toEqual([]);
  });

  it("reaches no output of a run that looks outside with another source, nor the query log of one that uses it", async () => {
    const replay = braveReplay(place.box, braveBody([{ url: "https://news.example.org/release", title: "Automerge latest release", snippets: ["The latest Automerge release adds compaction."] }]));
    const run = await cli(place.box, ["research", `${WEB_QUESTION} ${KEYS.GITHUB_TOKEN} ${KEY}`, "--trace", "--external-search", "always", "--replay", replay, "--json"], env);
    expect(run.code).toBe(0);
    expect(queryLog()).toContain("[redacted]");
    const outputs = { ...everyOutput(place.box, run), "file names": fileNames() };
    for (const key of [KEY, KEY.toLowerCase(), KEYS.GITHUB_TOKEN, KEYS.GITHUB_TOKEN.toLowerCase()]) expect(whereFound(key, outputs), `found ${key}`).toEqual([]);
  });

  it("reaches no output of search, the query log included", async () => {
    const run = await cli(place.box, ["search", `Automerge ${KEY}`, "--json"], env);
    expect(run.code).toBe(0);
    expect(queryLog()).toContain("[redacted]");
    for (const key of [KEY, KEY.toLowerCase()]) expect(whereFound(key, { ...everyOutput(place.box, run), "file names": fileNames() }), `found ${key}`).toEqual([]);
  });
});

describe("a config file that is not valid JSON", () => {
  it("is refused without quoting the file, so a key pasted into it is not printed even in part", async () => {
    const key = KEYS.BRAVE_SEARCH_API_KEY;
    const file = config(place.box, {}, "config.json");
    writeFileSync(file, `{\n  "external": {\n    "brave": { "secretId": ${key} }\n  }\n}\n`);
    const run = await cli(place.box, ["search", "Automerge", "--config", file], { BRAVE_SEARCH_API_KEY: key });
    expect(run.code).toBe(2);
    expect(run.err).toContain("is not valid JSON");
    expect(run.err).toContain("line 3, column 28");
    for (const part of [key, key.slice(0, 6), key.slice(0, 3)]) expect(run.err, `found ${part}`).not.toContain(part);
  });
});
