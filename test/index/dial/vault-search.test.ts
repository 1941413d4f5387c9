// The dial end to end, over real sockets to the stand-in embedding and chat server: level 1 is
// the index's own search and touches no network; level 2 adds the paraphrase a lexical index
// misses, fused by RRF; level 3 names the section that matched; level 4 lets the chat model
// reorder level 3's top results, and keeps level 3's order when the model fails. Every search
// lands in the query log.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { embeddedVault, standInEmbedder } from "../../support/embedded-vault";
import { VaultSearch, type VaultSearchOptions } from "../../../src/index/dial/vault-search";
import type { DialLevel } from "../../../src/index/dial/dial-types";
import { compareLevels } from "../../../src/index/dial/level-comparison";
import { FINGERPRINT_TEXT, VectorStore } from "../../../src/index/embeddings/vector-store";
import { QueryLog } from "../../../src/index/query-log/query-log";
import { VaultIndex } from "../../../src/index/vault-index";
import { ollamaEmbeddingModel } from "../../../src/llm/embeddings/ollama-embedding";
import { openAiCompatibleModel } from "../../../src/llm/openai-compatible";
import { fetchHttp, type StandInServer } from "../../llm/embeddings/stand-in-embedding-server";
import { MemoryNoteStore } from "../../support/memory-note-store";
import { ControlledStore } from "../../support/controlled-note-store";
import { EmbeddingJob } from "../../../src/index/embeddings/embedding-job";
import type { Embedder } from "../../../src/index/embeddings/embedder";
import { fakeClock } from "../../support/fake-clock";
import { MemoryQueryLogFile } from "../query-log/memory-query-log-file";
import { MAX_QUESTION_CHARS, questionRead } from "../../../src/text/cut-text";

const NOTES: Record<string, string> = {
  "Cars/Automobile history.md": "# Automobile history\n\nThe automobile was invented in the nineteenth century by engineers in Germany.\n",
  "Cars/Fixing cars.md": "# Fixing cars\n\nHow I mend my car at home.\n\n## Brakes\n\nFixing the car brakes: new pads and a vehicle check.\n",
  "Journal/Garage diary.md":
    "# Garage diary\n\n## Monday\n\nShopping for groceries and bread and milk.\n\n## Tuesday\n\nSpent the afternoon fixing the vehicle, car brakes mended.\n\n## Wednesday\n\nRead a book about gardens and flowers.\n",
  "Pets/Dogs.md": "---\ntags: [pets]\n---\n# Dogs\n\nMy puppy likes long walks in the park.\n",
  "Pets/Cats.md": "---\ntags: [pets]\n---\n# Cats\n\nThe kitten sleeps all day on the sofa.\n",
  "Recipes/Soup.md": "# Soup\n\nLeek and potato soup with bread.\n",
  "Recipes/Bread.md": "# Bread\n\nFlour, water, salt and time.\n",
};

let server: StandInServer;
let store: MemoryNoteStore;
let index: VaultIndex;
let vectors: VectorStore;

const embedder = () => standInEmbedder(server);
const chat = () => openAiCompatibleModel({ http: fetchHttp, model: "stand-in", baseUrl: `${server.base}/v1`, timeoutMs: 5000 });

function dial(options: Partial<VaultSearchOptions> = {}): VaultSearch {
  return new VaultSearch({ index, notes: store, vectors, embedder: embedder(), rerankModel: chat(), ...options });
}

beforeAll(async () => {
  ({ server, store, index, vectors } = await embeddedVault(NOTES, 256));
});
afterAll(() => server.close());
beforeEach(() => {
  server.script = { dimensions: 256 };
  server.embedCalls.length = 0;
  server.chatCalls.length = 0;
});

const paths = (results: { path: string }[]) => results.map((r) => r.path);

describe("level 1: lexical", () => {
  it("is the index's own search, result for result, and asks nothing of the network", async () => {
    const requestsBefore = fetchHttp.requests;
    const response = await dial().search({ query: "automobile repair", level: 1 });
    const own = await index.search("automobile repair", store, { limit: 10 });
    expect(response.ranLevel).toBe(1);
    expect(response.results.map((r) => [r.path, r.score])).toEqual(own.map((r) => [r.path, r.score]));
    expect(response.results.map((r) => r.lexical)).toEqual(own);
    expect(response.notices).toEqual([]);
    expect(fetchHttp.requests).toBe(requestsBefore);
    expect(server.embedCalls).toHaveLength(0);
    expect(server.chatCalls).toHaveLength(0);
  });

  it("ranks each note by its words' score where the vault's language moved it, and gives a note only that lane found no words rank", async () => {
    // The index's order after the vault-language lane's fusion: a lower words' score first, a note with none of the words third.
    const explanation = (score: number, meaning?: { rank: number; similarity: number }) => ({ matchedTerms: score > 0 ? ["kite"] : [], missingTerms: [], fields: {}, parts: [], termWeights: {}, termNotes: {}, ...(meaning ? { vaultLanguage: meaning } : {}) });
    const found = [
      { path: "Lifted.md", title: "Lifted", score: 3, tags: [], sections: [], explanation: explanation(3, { rank: 1, similarity: 0.81 }) },
      { path: "Words.md", title: "Words", score: 9, tags: [], sections: [], explanation: explanation(9) },
      { path: "Meaning.md", title: "Meaning", score: 0, tags: [], sections: [], explanation: explanation(0, { rank: 2, similarity: 0.74 }) },
    ];
    const fused = { search: async () => found, note: () => undefined, paths: () => [] } as unknown as VaultIndex;
    const response = await new VaultSearch({ index: fused, notes: store }).search({ query: "kite", level: 1 });
    expect(paths(response.results)).toEqual(["Lifted.md", "Words.md", "Meaning.md"]);
    expect(response.results.map((r) => r.explanation.lanes)).toEqual([
      [{ lane: "lexical", rank: 2, contribution: 0, score: 3 }],
      [{ lane: "lexical", rank: 1, contribution: 0, score: 9 }],
      [],
    ]);
  });

  it("gives each note the words' rank the fusion says, when the vault's language pushed a words' note out of the shown ones", async () => {
    // The words ranked Kite (9), Pushed (7), String (5); the lane's note Meaning came first, and
    // Pushed fell below the three shown. String is the words' third, not the second of those shown.
    const explanation = (score: number, wordsRank: number | null, fused: number) => ({
      matchedTerms: score > 0 ? ["kite"] : [],
      missingTerms: [],
      fields: {},
      parts: [],
      termWeights: {},
      termNotes: {},
      fusion: { score: fused, wordsRank },
    });
    const found = [
      { path: "Meaning.md", title: "Meaning", score: 0, tags: [], sections: [], explanation: { ...explanation(0, null, 0.0325), vaultLanguage: { rank: 1, similarity: 0.8 } } },
      { path: "Kite.md", title: "Kite", score: 9, tags: [], sections: [], explanation: explanation(9, 1, 0.0164) },
      { path: "String.md", title: "String", score: 5, tags: [], sections: [], explanation: explanation(5, 3, 0.0159) },
    ];
    const fused = { search: async () => found, note: () => undefined, paths: () => [] } as unknown as VaultIndex;
    const response = await new VaultSearch({ index: fused, notes: store }).search({ query: "kite", level: 1, limit: 3 });
    expect(response.results.map((r) => [r.path, r.explanation.lanes.map((l) => l.rank)])).toEqual([
      ["Meaning.md", []],
      ["Kite.md", [1]],
      ["String.md", [3]],
    ]);
  });

  it("says the time a search took when the wall clock was set back an hour during it (it said minus an hour)", async () => {
    const clock = fakeClock();
    const slow = {
      search: async () => {
        clock.advance(40);
        clock.set(clock.now() - 3_600_000);
        return [];
      },
      note: () => undefined,
      paths: () => [],
    } as unknown as VaultIndex;
    const response = await new VaultSearch({ index: slow, notes: store, clock }).search({ query: "kite", level: 1 });
    expect(response.latencyMs).toBe(40);
  });

  it("works with nothing configured", async () => {
    const response = await new VaultSearch({ index, notes: store }).search({ query: "soup", level: 1 });
    expect(paths(response.results)).toEqual(["Recipes/Soup.md"]);
  });

  it("loose: the closest notes by spelling when nothing matched, with no request to any server", async () => {
    const search = new VaultSearch({ index, notes: store });
    expect((await search.search({ query: "kit", level: 1 })).results).toEqual([]);
    const requestsBefore = fetchHttp.requests;
    const loose = await search.search({ query: "kit", level: 1, loose: true });
    expect(paths(loose.results)).toEqual(["Pets/Cats.md"]);
    expect(loose.ranLevel).toBe(1);
    expect(fetchHttp.requests).toBe(requestsBefore);
  });
});

describe("level 2: hybrid", () => {
  it("adds the paraphrase words alone miss, while the exact name stays on top", async () => {
    const lexical = await dial().search({ query: "automobile repair", level: 1 });
    expect(paths(lexical.results)).not.toContain("Cars/Fixing cars.md");
    const hybrid = await dial().search({ query: "automobile repair", level: 2 });
    expect(hybrid.ranLevel).toBe(2);
    expect(hybrid.results[0].path).toBe("Cars/Automobile history.md");
    expect(paths(hybrid.results)).toContain("Cars/Fixing cars.md");
    // One request: the query, and the text whose answer tells the model that made the vectors.
    expect(server.embedCalls.map((c) => c.input)).toEqual([["search_query: automobile repair", `search_query: ${FINGERPRINT_TEXT}`]]);
  });

  // Each lane stopped at its depth (50) however many results were asked: `search --limit 100 --level 2`
  // showed the words' first 50 and vector-only notes, and lost notes 51 to 100 level 1 showed.
  it.each([2, 3, 4] as DialLevel[])("asked for more results than a lane's depth, level %i reads each lane that deep: the words' notes past it are not lost", async (level) => {
    const lexical = await dial({ laneDepth: 1 }).search({ query: "bread", level: 1, limit: 7 });
    expect(lexical.results.length).toBeGreaterThan(2);
    const fused = await dial({ laneDepth: 1 }).search({ query: "bread", level, limit: 7 });
    expect(fused.ranLevel).toBe(level);
    expect(paths(fused.results)).toEqual(expect.arrayContaining(paths(lexical.results)));
  });

  it("explains every result as data: the lanes that found it, their ranks and RRF contributions", async () => {
    const { results } = await dial().search({ query: "automobile repair", level: 2 });
    for (const result of results) {
      const lanes = result.explanation.lanes;
      expect(lanes.length).toBeGreaterThan(0);
      expect(lanes.every((l) => l.lane === "lexical" || l.lane === "note_vector")).toBe(true);
      for (const lane of lanes) expect(lane.contribution).toBeCloseTo(1 / (60 + lane.rank), 12);
      expect(result.score).toBeCloseTo(lanes.reduce((sum, l) => sum + l.contribution, 0), 12);
    }
    const scores = results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const top = results[0].explanation.lanes.find((l) => l.lane === "lexical");
    expect(top).toMatchObject({ rank: 1 });
  });
});

describe("level 3: multi-field", () => {
  it("finds a note through one section and names it, with that section's words", async () => {
    const { results, ranLevel } = await dial().search({ query: "automobile repair", level: 3 });
    expect(ranLevel).toBe(3);
    const diary = results.find((r) => r.path === "Journal/Garage diary.md");
    expect(diary?.section).toMatchObject({ from: "section_vector", unit: "section", headingPath: ["Garage diary", "Tuesday"] });
    expect(diary?.section?.snippet).toBe("Spent the afternoon fixing the vehicle, car brakes mended.");
    expect(diary?.explanation.lanes.map((l) => l.lane)).toContain("section_vector");
  });

  it("does everything level 2 does, and more: the same lanes plus the section lane", async () => {
    const two = await dial().search({ query: "automobile repair", level: 2 });
    const three = await dial().search({ query: "automobile repair", level: 3 });
    const lanesOf = (r: typeof two) => new Set(r.results.flatMap((x) => x.explanation.lanes.map((l) => l.lane)));
    expect([...lanesOf(two)].every((lane) => lanesOf(three).has(lane))).toBe(true);
    expect(lanesOf(three).has("section_vector")).toBe(true);
    expect(lanesOf(two).has("section_vector")).toBe(false);
  });
});

describe("level 4: rerank", () => {
  it("lets the chat model reorder level 3's top results in one bounded call, and says where each came from", async () => {
    const three = await dial().search({ query: "automobile repair", level: 3 });
    const four = await dial().search({ query: "automobile repair", level: 4 });
    expect(four.ranLevel).toBe(4);
    expect(server.chatCalls).toHaveLength(1);
    expect(server.chatCalls[0].body).toMatchObject({ model: "stand-in", temperature: 0, max_tokens: 200 });
    // The stand-in answers with the results reversed.
    expect(paths(four.results)).toEqual(paths(three.results).reverse());
    expect(four.results[0].explanation.rerank).toEqual({ before: three.results.length, after: 1, model: "openai:stand-in" });
  });

  it("answers a repeated search from the cache without calling the model again", async () => {
    const search = dial();
    const first = await search.search({ query: "bread", level: 4 });
    const second = await search.search({ query: "bread", level: 4 });
    expect(server.chatCalls).toHaveLength(1);
    expect(paths(second.results)).toEqual(paths(first.results));
    expect(second.notices.map((n) => n.kind)).toContain("rerank_cached");
  });

  it("says when the model ranked only some of the results, and that the rest keep level 3's order — from the cache too", async () => {
    server.script.chatAnswer = () => '{"order": [2]}';
    const search = dial();
    const three = await search.search({ query: "automobile repair", level: 3 });
    const four = await search.search({ query: "automobile repair", level: 4 });
    const shown = three.results.length;
    expect(four.ranLevel).toBe(4);
    expect(paths(four.results)).toEqual([paths(three.results)[1], paths(three.results)[0], ...paths(three.results).slice(2)]);
    const partial = { kind: "rerank_partial", named: 1, candidates: shown, message: `openai:stand-in ranked only 1 of the ${shown} results; the other ${shown - 1} follow it in level 3's order.` };
    expect(four.notices).toEqual([partial]);
    const again = await search.search({ query: "automobile repair", level: 4 });
    expect(again.notices).toEqual([expect.objectContaining({ kind: "rerank_cached" }), partial]);
  });

  it("keeps level 3's order, and says so, when the model's answer is not the JSON asked for", async () => {
    server.script.chatAnswer = () => "Sure! The best is 2, then 1.";
    const three = await dial().search({ query: "automobile repair", level: 3 });
    const four = await dial().search({ query: "automobile repair", level: 4 });
    expect(four.ranLevel).toBe(3);
    expect(paths(four.results)).toEqual(paths(three.results));
    expect(four.notices).toEqual([
      expect.objectContaining({ kind: "rerank_failed", reason: "invalid_json", message: 'The model\'s reordering was not usable: the answer was not JSON but "Sure! The best is 2, then 1." Level 3\'s order stands.' }),
    ]);
  });

  it("keeps level 3's order when the model is too slow", async () => {
    server.script.chatDelayMs = 1500;
    const four = await dial({ rerankTimeoutMs: 200 }).search({ query: "automobile repair", level: 4 });
    expect(four.ranLevel).toBe(3);
    expect(four.notices).toEqual([expect.objectContaining({ kind: "rerank_failed", reason: "timeout" })]);
  });

  it("without a chat model runs level 3 and says why", async () => {
    const four = await dial({ rerankModel: null }).search({ query: "automobile repair", level: 4 });
    expect(four.ranLevel).toBe(3);
    expect(four.notices).toEqual([expect.objectContaining({ kind: "level_unavailable", reason: "no_chat_model", ran: 3 })]);
  });
});

describe("when a level cannot run", () => {
  it.each([2, 3, 4] as DialLevel[])("level %i without an embedding model runs level 1 and says why", async (level) => {
    const response = await dial({ embedder: null }).search({ query: "soup", level });
    expect(response.ranLevel).toBe(1);
    expect(response.notices).toEqual([expect.objectContaining({ kind: "level_unavailable", reason: "no_embedder", wanted: level, ran: 1 })]);
  });

  it("without vectors from this model runs level 1", async () => {
    const other = ollamaEmbeddingModel({ http: fetchHttp, model: "mxbai-embed-large", baseUrl: server.base, requestsPerSecond: 0 });
    const response = await dial({ embedder: other }).search({ query: "soup", level: 2 });
    expect(response.notices).toEqual([expect.objectContaining({ reason: "no_vectors" })]);
    expect(server.embedCalls).toHaveLength(0);
  });

  it("another model behind the same name and dimensions runs level 1, and says the vault must be embedded again", async () => {
    server.script.variant = 1;
    for (const level of [2, 3, 4] as DialLevel[]) {
      const response = await dial().search({ query: "automobile repair", level });
      expect(response.ranLevel).toBe(1);
      expect(response.notices).toEqual([expect.objectContaining({ kind: "level_unavailable", reason: "no_vectors", ran: 1, message: expect.stringContaining("answers differently") as string })]);
    }
    expect(server.chatCalls).toHaveLength(0);
  });

  it("a failed query embedding runs level 1 with the client's words", async () => {
    server.script.embedFailure = { status: 500, body: { error: "model crashed" } };
    const response = await dial().search({ query: "automobile repair", level: 3 });
    const own = await index.search("automobile repair", store, { limit: 10 });
    expect(response.ranLevel).toBe(1);
    expect(paths(response.results)).toEqual(paths(own));
    expect(response.notices).toEqual([expect.objectContaining({ kind: "embedding_failed", errorKind: "http", message: expect.stringContaining("model crashed") as string })]);
  });

  // Every note is at cosine 0 from a vector of zeros: the note lanes were the vault in stored order,
  // fused into the results as if near the query ("Dogs — note vector #2 (cosine 0.00)" for "soup").
  it.each([2, 3, 4] as DialLevel[])("a query answered with a vector of zeros runs level %i as level 1, and says so", async (level) => {
    const real = embedder();
    const zeros: Embedder = {
      name: real.name,
      embed: async (texts, role, signal) => {
        const answer = await real.embed(texts, role, signal);
        return answer.ok ? { ...answer, vectors: answer.vectors.map((v, i) => (texts[i] === FINGERPRINT_TEXT ? v : new Float32Array(v.length))) } : answer;
      },
    };
    const response = await dial({ embedder: zeros }).search({ query: "soup", level });
    const own = await index.search("soup", store, { limit: 10 });
    expect(response.ranLevel).toBe(1);
    expect(paths(response.results)).toEqual(paths(own));
    expect(response.notices).toEqual([
      expect.objectContaining({ kind: "embedding_failed", wanted: level, ran: 1, errorKind: "parse", message: expect.stringMatching(/vector of zeros.*Searched by words only \(level 1\)\.$/) as string }),
    ]);
    expect(server.chatCalls).toHaveLength(0);
  });

  // The dial takes any embedder of the shape: one that sent one vector for the two texts said "The query's
  // vector has 256 dimensions and the stored ones 256", and one whose vectors were not the length it said threw.
  it("an embedder that answers fewer vectors than texts, or vectors not the length it says, runs level 1 and says what it sent", async () => {
    const real = embedder();
    const short: Embedder = { name: real.name, embed: async (texts, role, signal) => {
      const answer = await real.embed(texts, role, signal);
      return answer.ok ? { ...answer, vectors: answer.vectors.slice(0, 1) } : answer;
    } };
    const fewer = await dial({ embedder: short }).search({ query: "soup", level: 2 });
    expect(fewer.ranLevel).toBe(1);
    expect(fewer.notices).toEqual([expect.objectContaining({ kind: "embedding_failed", errorKind: "parse", message: "The embedding server sent 1 vector for 2 texts. Searched by words only (level 1)." })]);
    const cut: Embedder = { name: real.name, embed: async (texts, role, signal) => {
      const answer = await real.embed(texts, role, signal);
      return answer.ok ? { ...answer, vectors: answer.vectors.map((v) => v.slice(0, 128)) } : answer;
    } };
    const shorter = await dial({ embedder: cut }).search({ query: "soup", level: 3 });
    expect(shorter.ranLevel).toBe(1);
    expect(shorter.notices).toEqual([expect.objectContaining({ kind: "embedding_failed", errorKind: "dimension_mismatch", message: "The query's vector has 128 dimensions and the stored ones 256: embed the vault again. Searched by words only (level 1)." })]);
  });

  // The client's words have no stop of their own: "…HTTP 500: model crashed Searched by words only (level 1)."
  it("ends the client's words as a sentence before saying the search used words only", async () => {
    server.script.embedFailure = { status: 500, body: { error: "model crashed" } };
    const response = await dial().search({ query: "automobile repair", level: 2 });
    const [notice] = response.notices;
    expect(notice.message).toMatch(/: model crashed\. Searched by words only \(level 1\)\.$/);
  });

  it("says how many notes the vectors cover while embedding catches up", async () => {
    const growing = new MemoryNoteStore(NOTES);
    const bigger = new VaultIndex();
    await bigger.sync(growing, null);
    bigger.applyText("New/Unembedded.md", "# Unembedded\n\nNot yet.\n", 1, 22);
    const response = await new VaultSearch({ index: bigger, notes: growing, vectors, embedder: embedder() }).search({ query: "soup", level: 2 });
    expect(response.notices).toEqual([expect.objectContaining({ kind: "vectors_partial", embedded: 7, notes: 8, message: "Vectors cover 7 of 8 notes; the others are found by their words only until embedding catches up." })]);
  });

  it("a note edited since its vectors were made is found by its words only, not by what it used to say", async () => {
    const edited = new MemoryNoteStore(NOTES);
    const now = new VaultIndex();
    await now.sync(edited, null);
    // The diary's Tuesday no longer mentions the car; its vectors still do.
    const text = "# Garage diary\n\n## Monday\n\nNothing happened.\n\n## Tuesday\n\nWe baked a cake with my sister.\n";
    edited.files.set("Journal/Garage diary.md", { text, mtime: 1_900_000_000_000 });
    now.applyText("Journal/Garage diary.md", text, 1_900_000_000_000, text.length);
    const search = new VaultSearch({ index: now, notes: edited, vectors, embedder: embedder() });
    for (const level of [2, 3] as DialLevel[]) {
      const response = await search.search({ query: "automobile repair", level });
      expect(response.ranLevel).toBe(level);
      expect(paths(response.results)).toContain("Cars/Fixing cars.md");
      expect(paths(response.results)).not.toContain("Journal/Garage diary.md");
      expect(response.notices).toContainEqual(expect.objectContaining({ kind: "vectors_partial", embedded: 6, notes: 7 }));
    }
    // Its words still find it.
    expect(paths((await search.search({ query: "cake sister", level: 3 })).results)).toContain("Journal/Garage diary.md");
  });

  it("tells notes the embedding server refused, and notes that could not be read, from notes still waiting", async () => {
    const vault = new ControlledStore();
    for (const [path, text] of Object.entries(NOTES)) vault.write(path, text, 1_000);
    vault.write("Notes/Poisoned.md", "# Poisoned\n\nA word the server chokes on: zqxpoison.\n", 1_000);
    vault.write("Notes/Locked.md", "# Locked\n\nNo one may read this.\n", 1_000);
    vault.write("Notes/Long.md", "# Long\n\nA text the server says is too long: zqxlong.\n", 1_000);
    const withHoles = new VaultIndex();
    await withHoles.sync(vault, null);
    const held = new VectorStore();
    server.script.nullFor = "zqxpoison";
    // The index read the locked note before it was locked: the job cannot.
    vault.failing.add("Notes/Locked.md");
    const files = withHoles.paths().map((p) => ({ path: p, mtime: withHoles.note(p)!.mtime, size: withHoles.note(p)!.size }));
    // A server that answers an error for one text (a context length exceeded), as an HTTP 400.
    const real = embedder();
    const strict: Embedder = {
      name: real.name,
      embed: (texts, role, signal) => (texts.some((t) => t.includes("zqxlong")) ? Promise.resolve({ ok: false, error: { kind: "http", message: "The server answered HTTP 400: input too long" } }) : real.embed(texts, role, signal)),
    };
    expect(await new EmbeddingJob({ store: held, embedder: strict, notes: vault }).run(files)).toMatchObject({ state: "done", notesDone: 7, notesUnreadable: 1, refused: { notes: 2 } });
    server.script.nullFor = undefined;
    // And one note added since the run: that one is still waiting.
    withHoles.applyText("New/Unembedded.md", "# Unembedded\n\nNot yet.\n", 1, 22);
    const response = await new VaultSearch({ index: withHoles, notes: vault, vectors: held, embedder: embedder() }).search({ query: "soup", level: 2 });
    expect(response.notices).toEqual([
      expect.objectContaining({
        kind: "vectors_partial",
        embedded: 7,
        notes: 11,
        waiting: 1,
        refused: 2,
        unreadable: 1,
        message:
          "Vectors cover 7 of 11 notes; the others are found by their words only: 1 until embedding catches up, 1 the embedding server refused (an error for its text), 1 the embedding server refused (its answer was not a vector), 1 that could not be read.",
      }),
    ]);
    // None waiting: nothing said of catching up.
    withHoles.removeFile("New/Unembedded.md");
    const refusedOnly = await new VaultSearch({ index: withHoles, notes: vault, vectors: held, embedder: embedder() }).search({ query: "soup", level: 2 });
    expect(refusedOnly.notices[0].message).toBe(
      "Vectors cover 7 of 10 notes; the others are found by their words only: 1 the embedding server refused (an error for its text), 1 the embedding server refused (its answer was not a vector), 1 that could not be read.",
    );
  });

  it("a refused note edited since is waiting again, not refused", async () => {
    const vault = new ControlledStore();
    for (const [path, text] of Object.entries(NOTES)) vault.write(path, text, 1_000);
    vault.write("Notes/Poisoned.md", "# Poisoned\n\nA word the server chokes on: zqxpoison.\n", 1_000);
    const withHoles = new VaultIndex();
    await withHoles.sync(vault, null);
    const held = new VectorStore();
    server.script.nullFor = "zqxpoison";
    await new EmbeddingJob({ store: held, embedder: embedder(), notes: vault }).run(withHoles.paths().map((p) => ({ path: p, mtime: withHoles.note(p)!.mtime, size: withHoles.note(p)!.size })));
    server.script.nullFor = undefined;
    withHoles.applyText("Notes/Poisoned.md", "# Poisoned\n\nNo longer.\n", 2_000, 23);
    const response = await new VaultSearch({ index: withHoles, notes: vault, vectors: held, embedder: embedder() }).search({ query: "soup", level: 2 });
    expect(response.notices).toEqual([expect.objectContaining({ kind: "vectors_partial", embedded: 7, notes: 8, message: "Vectors cover 7 of 8 notes; the others are found by their words only until embedding catches up." })]);
  });

  it("tells the dial which levels are ready", () => {
    expect(dial().readiness().map((r) => r.ready)).toEqual([true, true, true, true]);
    expect(dial({ rerankModel: null }).readiness().map((r) => [r.ready, r.notice?.kind === "level_unavailable" ? r.notice.reason : null])).toEqual([
      [true, null],
      [true, null],
      [true, null],
      [false, "no_chat_model"],
    ]);
    expect(dial({ embedder: null }).readiness().map((r) => r.ready)).toEqual([true, false, false, false]);
  });
});

describe("a query longer than is read", () => {
  it("searches, embeds and logs its first MAX_QUESTION_CHARS characters, and says so", async () => {
    const asked = `fixing car brakes ${"and the vehicle ".repeat(50_000)}`;
    const response = await dial().search({ query: asked, level: 2 });
    expect(response.ranLevel).toBe(2);
    expect(response.query).toBe(questionRead(asked));
    expect(response.query.length).toBeLessThanOrEqual(MAX_QUESTION_CHARS);
    expect(server.embedCalls.flatMap((c) => c.input).every((text) => text.length <= MAX_QUESTION_CHARS + 100)).toBe(true);
    expect(response.notices).toContainEqual({ kind: "query_cut", message: "The query is 800,018 characters long; only its first 2,000 were read." });
    expect(paths(response.results)).toContain("Cars/Fixing cars.md");
  });
});

describe("filters", () => {
  it.each([1, 2, 3, 4] as DialLevel[])("level %i shows only notes inside the folders and with the tags asked for", async (level) => {
    const response = await dial().search({ query: "automobile repair walks kitten", level, filters: { folders: ["Pets/"], tags: ["#Pets"] } });
    expect(response.results.length).toBeGreaterThan(0);
    expect(response.results.every((r) => r.path.startsWith("Pets/"))).toBe(true);
  });

  it("finds the notes that pass however far below the best notes overall they rank", async () => {
    // Sixty notes say "file" more than the one tagged #glossary: a page asked for and filtered
    // afterwards held none of it.
    const notes: Record<string, string> = { "Glossary/Term.md": "---\ntags: [glossary]\n---\n# Term\n\nA file, once, among many other words here.\n" };
    for (let i = 0; i < 60; i++) notes[`Docs/File ${i}.md`] = `# File ${i}\n\nThe file, the file and the file again.\n`;
    const many = new MemoryNoteStore(notes);
    const index = new VaultIndex({});
    await index.sync(many, null);
    const response = await new VaultSearch({ index, notes: many, vectors: null, embedder: null }).search({ query: "file", level: 1, limit: 10, filters: { tags: ["glossary"] } });
    expect(paths(response.results)).toEqual(["Glossary/Term.md"]);
  });
});

describe("query log", () => {
  it("logs each search with its level, the level that ran, filters, result keys in order and latency, and click-throughs", async () => {
    const file = new MemoryQueryLogFile();
    const search = dial({ log: new QueryLog({ file }), surface: "search-modal" });
    const response = await search.search({ query: "automobile repair", level: 2, filters: { tags: ["cars"] } });
    const noTags = await search.search({ query: "automobile repair", level: 4, limit: 3 });
    await search.recordClick(noTags, noTags.results[1].key);
    const lines = file.current.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ type: "search", surface: "search-modal", query: "automobile repair", level: 2, ran_level: 2, filters: { folders: [], tags: ["cars"] }, results: paths(response.results) });
    expect(lines[1]).toMatchObject({ type: "search", level: 4, ran_level: 4, results: paths(noTags.results) });
    expect(typeof lines[1].latency_ms).toBe("number");
    expect(lines[2]).toEqual(expect.objectContaining({ type: "click", id: noTags.logId, key: noTags.results[1].key, rank: 2 }));
  });
});

describe("comparison", () => {
  it("embeds the query once for all the levels that use it, not once per level", async () => {
    await compareLevels(dial(), { query: "automobile repair", limit: 10 });
    expect(server.embedCalls).toHaveLength(1);
    // A search of its own, after the comparison, asks again.
    await dial().search({ query: "automobile repair", level: 2 });
    expect(server.embedCalls).toHaveLength(2);
  });

  it("an embedding server that fails is asked once, and every vector level's column says why", async () => {
    server.script = { dimensions: 256, embedFailure: { status: 500, body: { error: "model crashed" } } };
    const comparison = await compareLevels(dial(), { query: "automobile repair", limit: 10 });
    expect(server.embedCalls).toHaveLength(1);
    expect(comparison.levels.map((l) => [l.level, l.ranLevel])).toEqual([
      [1, 1],
      [2, 1],
      [3, 1],
      [4, 1],
    ]);
    for (const level of comparison.levels.slice(1)) expect(level.notices).toMatchObject([{ kind: "embedding_failed", wanted: level.level }]);
  });

  it("runs all four levels for one query and marks how each note moved between levels", async () => {
    const comparison = await compareLevels(dial(), { query: "automobile repair", limit: 10 });
    expect(comparison.levels.map((l) => [l.level, l.ranLevel])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
    const fixing = comparison.rows.find((r) => r.key === "Cars/Fixing cars.md")!;
    expect(fixing.ranks[0]).toBeNull();
    expect(fixing.moves[1]).toEqual({ kind: "new" });
    const history = comparison.rows.find((r) => r.key === "Cars/Automobile history.md")!;
    expect(history.ranks.slice(0, 3)).toEqual([1, 1, 1]);
    expect(history.moves.slice(0, 3)).toEqual([{ kind: "same" }, { kind: "same" }, { kind: "same" }]);
    // Level 4 reversed the stand-in's order: the top note moved down.
    expect(history.moves[3]).toMatchObject({ kind: "down" });
    expect(comparison.rows[0].ranks[3]).toBe(1);
  });
});

/** The stand-in's embedder, held at each call until `release`; `called` settles when the first call arrives. */
function heldEmbedder() {
  const inner = embedder();
  let release!: () => void;
  let arrived!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const called = new Promise<void>((resolve) => (arrived = resolve));
  const model = {
    name: inner.name,
    async embed(...args: Parameters<typeof inner.embed>) {
      arrived();
      await held;
      return inner.embed(...args);
    },
  };
  return { model, called, release };
}

describe("query log and clear", () => {
  it("a search that began before the log was cleared is not written after the clear", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file });
    const held = heldEmbedder();
    const search = dial({ log, embedder: held.model, surface: "search-modal" });
    const running = search.search({ query: "automobile repair", level: 2 });
    await held.called;
    // The user clears the log while the query is at the embedding server.
    await log.clear();
    held.release();
    const response = await running;
    expect(response.ranLevel).toBe(2);
    expect(response.logId).toBeNull();
    expect(file.current).toBe("");
    expect(log.problem).toBeNull();
  });

  it("a comparison that began before the log was cleared writes none of its levels after the clear", async () => {
    const file = new MemoryQueryLogFile();
    const log = new QueryLog({ file });
    const held = heldEmbedder();
    const running = compareLevels(dial({ log, embedder: held.model, surface: "comparison-view" }), { query: "automobile repair" });
    // Level 1 is logged; level 2's query is at the embedding server when the user clears the log.
    await held.called;
    await log.clear();
    held.release();
    const comparison = await running;
    expect(comparison.levels.map((l) => l.ranLevel)).toEqual([1, 2, 3, 4]);
    // Levels 3 and 4 began after the clear, but the user asked for them before it.
    expect(file.current).toBe("");
    expect((await log.read()).lines).toEqual([]);
  });

  it("a search given up on while the query was at the embedding server is not logged as one that fell back to words", async () => {
    const file = new MemoryQueryLogFile();
    const held = heldEmbedder();
    const search = dial({ log: new QueryLog({ file }), embedder: held.model, surface: "search-modal" });
    const controller = new AbortController();
    const running = search.search({ query: "automobile repair", level: 2, signal: controller.signal });
    await held.called;
    // The user typed on: this search's results will never be shown.
    controller.abort();
    held.release();
    const response = await running;
    expect(response.logId).toBeNull();
    expect(file.current).toBe("");
  });

  it("logs level 1's spelling fallback as such, and a plain level 1 search without it", async () => {
    const file = new MemoryQueryLogFile();
    const search = new VaultSearch({ index, notes: store, log: new QueryLog({ file }) });
    await search.search({ query: "kit", level: 1 });
    await search.search({ query: "kit", level: 1, loose: true });
    const lines = file.current.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l.level, l.ran_level, l.loose])).toEqual([
      [1, 1, undefined],
      [1, 1, true],
    ]);
  });

  it("a vector level asked with loose ran by meaning, not by spelling: not logged as loose", async () => {
    const file = new MemoryQueryLogFile();
    await dial({ log: new QueryLog({ file }) }).search({ query: "automobile repair", level: 2, loose: true });
    expect(JSON.parse(file.current) as Record<string, unknown>).toMatchObject({ level: 2, ran_level: 2 });
    expect(file.current).not.toContain("loose");
  });
});
