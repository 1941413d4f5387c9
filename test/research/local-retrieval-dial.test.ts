// Local retrieval through the search dial, against the stand-in embedding and chat server on
// 127.0.0.1: level 1 is byte for byte the index alone; at level 2 and above the dial's notes lead
// the pack in its order, a note only the vectors found joins as a row citing the section that
// matched, every row names the lanes that found it, and the pack says which level ran.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { embeddedVault, standInEmbedder } from "../support/embedded-vault";
import { VaultSearch } from "../../src/index/dial/vault-search";
import type { DialLevel } from "../../src/index/dial/dial-types";
import { VectorStore } from "../../src/index/embeddings/vector-store";
import { VaultIndex } from "../../src/index/vault-index";
import { openAiCompatibleModel } from "../../src/llm/openai-compatible";
import { retrievalLevelDetail, retrieveLocal } from "../../src/research/stages/local-retrieval";
import type { VaultRow } from "../../src/evidence/research-pack";
import { planQuestion } from "../../src/research/stages/plan";
import { runResearch } from "../../src/research/run";
import { defaultSettings } from "../../src/settings";
import { fetchHttp, type StandInServer } from "../llm/embeddings/stand-in-embedding-server";
import { fakeClock } from "../support/fake-clock";
import { recordingSecrets } from "../support/fake-secrets";
import { MemoryNoteStore } from "../support/memory-note-store";
import { anyString, stringMatching } from "../support/typed-matchers";

const NOTES: Record<string, string> = {
  "Fixing cars.md": "# Fixing cars\n\nNotes from the garage.\n\n## Brakes\n\nMending the vehicle brakes: new pads and a check of the discs.\n",
  "Car history.md": "# Car history\n\nThe first car with a petrol engine ran in 1886.\n",
  "Dogs.md": "# Dogs\n\nMy puppy likes long walks in the park.\n",
  "Soup.md": "# Soup\n\nLeek and potato soup with bread; repair the pot handle first.\n",
};

let server: StandInServer;
let store: MemoryNoteStore;
let index: VaultIndex;
let vectors: VectorStore;

const embedder = () => standInEmbedder(server);
const chat = () => openAiCompatibleModel({ http: fetchHttp, model: "stand-in", baseUrl: `${server.base}/v1`, timeoutMs: 5000 });
const dial = (level: DialLevel, withChat = false) => ({ search: new VaultSearch({ index, notes: store, vectors, embedder: embedder(), rerankModel: withChat ? chat() : null }), level });
const plan = (q: string) => planQuestion(q, { currentYear: 2026 });

beforeAll(async () => {
  ({ server, store, index, vectors } = await embeddedVault(NOTES, 256));
});
afterAll(() => server.close());

describe("local retrieval through the dial", () => {
  it("level 1 gives exactly the rows of the index alone, and asks the embedding server nothing", async () => {
    const calls = server.embedCalls.length;
    const question = plan("how do I repair the brakes of my automobile?");
    const alone = await retrieveLocal(question, index, store);
    const dialed = await retrieveLocal(question, index, store, { dial: dial(1) });
    expect(JSON.stringify(dialed.rows)).toBe(JSON.stringify(alone.rows));
    expect(dialed.results).toEqual(alone.results);
    expect(dialed.level).toEqual({ asked: 1, ran: 1, notices: [] });
    expect(server.embedCalls.length).toBe(calls);
  });

  it("level 3 brings the note the words missed, citing the section whose vector matched, with its lanes", async () => {
    const question = plan("repair automobile");
    const alone = await retrieveLocal(question, index, store);
    expect(alone.rows.map((r) => r.note_path)).not.toContain("Fixing cars.md");
    const local = await retrieveLocal(question, index, store, { dial: dial(3) });
    expect(local.level).toMatchObject({ asked: 3, ran: 3 });
    const fixing = local.rows.find((r) => r.note_path === "Fixing cars.md")!;
    expect(fixing).toBeDefined();
    expect(fixing.retrieval.lanes.map((l) => l.name)).toEqual(["full_text", "note_vector", "section_vector"]);
    expect(fixing.retrieval.matched_terms).toEqual([]);
    expect(fixing.sections[0]).toMatchObject({ heading: anyString(), text: stringMatching(/\w/) });
    expect(fixing.retrieval.signals.some((s) => s.name === "lane:section_vector")).toBe(true);
    expect(fixing.source_key).toMatch(/^src:[0-9a-f]{10}$/);
    const car = local.rows.find((r) => r.note_path === "Car history.md")!;
    expect(car.sections[0].text).toContain("petrol engine");
  });

  it("at level 2 a note found by its whole vector cites its opening section", async () => {
    const local = await retrieveLocal(plan("automobile"), index, store, { dial: dial(2) });
    expect(local.level).toMatchObject({ asked: 2, ran: 2 });
    const vectorOnly = local.rows.filter((r) => r.retrieval.matched_terms.length === 0);
    expect(vectorOnly.length).toBeGreaterThan(0);
    for (const row of vectorOnly) expect(row.sections[0]?.text.length).toBeGreaterThan(0);
  });

  it("level 4 puts the rows in the chat model's order and marks the move", async () => {
    const three = await retrieveLocal(plan("car brakes"), index, store, { dial: dial(3) });
    const four = await retrieveLocal(plan("car brakes"), index, store, { dial: dial(4, true) });
    expect(four.level).toMatchObject({ asked: 4, ran: 4 });
    const reranked = four.rows.filter((r) => r.retrieval.signals.some((s) => s.name === "rerank"));
    expect(reranked.length).toBeGreaterThan(1);
    // The stand-in model answers with the results reversed.
    const shown = Math.min(three.rows.length, 10);
    expect(four.rows.slice(0, shown).map((r) => r.note_path)).toEqual(three.rows.slice(0, shown).map((r) => r.note_path).reverse());
  });

  it("a dial that cannot run above level 1 leaves the rows as the index makes them and says why", async () => {
    const noVectors = { search: new VaultSearch({ index, notes: store, vectors: new VectorStore(), embedder: embedder() }), level: 3 as const };
    const question = plan("how do I repair the brakes of my automobile?");
    const local = await retrieveLocal(question, index, store, { dial: noVectors });
    expect(JSON.stringify(local.rows)).toBe(JSON.stringify((await retrieveLocal(question, index, store)).rows));
    expect(local.level).toMatchObject({ asked: 3, ran: 1, notices: [{ kind: "level_unavailable", reason: "no_vectors" }] });
  });

  // The CLI knows what the dial cannot (vectors there but unreadable): its words, not "Embed the vault first".
  it("says the dial's notices in the words its caller hands, in the level's detail too", async () => {
    const noVectors = { search: new VaultSearch({ index, notes: store, vectors: new VectorStore(), embedder: embedder() }), level: 2 as const };
    const said = { kind: "vectors_reset", message: "The stored vectors could not be read." };
    const local = await retrieveLocal(plan("brakes"), index, store, { dial: { ...noVectors, sayNotices: () => [said] } });
    expect(local.level).toEqual({ asked: 2, ran: 1, notices: [said] });
    expect(retrievalLevelDetail(local.level)).toBe(" at level 1 (lexical); level 2 was asked: The stored vectors could not be read.");
  });

  it("the pack and the trace say which level ran", async () => {
    const settings = defaultSettings();
    const clock = fakeClock();
    const result = await runResearch(
      { question: "fixing an automobile", retrievalOnly: true, writeTrace: false },
      { index, store, http: fetchHttp, secrets: recordingSecrets(), knownSecrets: [], clock, settings, model: null, dial: dial(3) },
    );
    expect(result.pack.coverage.recall_note).toMatch(/^Searched 4 notes at level 3 \(multi-field\); \d+ matched\./);
    const stage = result.trace.events.find((e) => e.type === "local_retrieval");
    expect(String(stage?.data?.detail)).toContain("at level 3 (multi-field)");
    expect(result.pack.evidence.some((r) => r.note_path === "Fixing cars.md")).toBe(true);
  });
});

describe("a section only its vector found", () => {
  const GARAGE: Record<string, string> = {
    "Garage.md": "# Garage\n\nNotes from the garage.\n\n## Brakes\n\nMending the vehicle brakes took two visits,\nnew pads and a check of the discs.\n\n| Part | Cost |\n|---|---|\n| Pads | 40 EUR |\n| Discs | 90 EUR |\n",
    "Dogs.md": "# Dogs\n\nMy puppy likes long walks in the park.\n",
    "Soup.md": "# Soup\n\nLeek and potato soup with bread.\n",
  };
  let garage: Awaited<ReturnType<typeof embeddedVault>>;
  beforeAll(async () => {
    garage = await embeddedVault(GARAGE, 256);
  });
  afterAll(() => garage.server.close());

  it("is cited as search shows a section: a wrapped line joined, each table row a line of its own", async () => {
    const search = new VaultSearch({ index: garage.index, notes: garage.store, vectors: garage.vectors, embedder: standInEmbedder(garage.server) });
    const local = await retrieveLocal(plan("repair automobile"), garage.index, garage.store, { dial: { search, level: 3 } });
    const row = local.rows.find((r) => r.note_path === "Garage.md")!;
    expect(row.retrieval.signals.some((s) => s.name === "lane:section_vector")).toBe(true);
    const cited = row.sections[0];
    expect(cited.heading).toBe("Brakes");
    expect(cited.text).toContain("took two visits, new pads");
    expect(cited.text.split("\n").filter((line) => line.includes("EUR"))).toHaveLength(2);
    expect(cited.highlights).toEqual([]);
  });
});

describe("a section its vector found, in a note edited before the index caught up", () => {
  const DIARY = "# Diary\n\n## Monday\n\nGroceries and bread.\n\n## Tuesday\n\nMend the vehicle brakes.\n\n## Wednesday\n\nA book about gardens.\n";
  let diary: Awaited<ReturnType<typeof embeddedVault>>;
  beforeEach(async () => {
    diary = await embeddedVault({ "Diary.md": DIARY, "Dogs.md": "# Dogs\n\nMy puppy likes long walks in the park.\n", "Soup.md": "# Soup\n\nLeek and potato soup with bread.\n" }, 256);
  });
  afterEach(() => diary.server.close());

  async function citedAfter(edit: (text: string) => string): Promise<VaultRow["sections"]> {
    // The note changes on disk; the index (and so the vectors it vouches for) still has the old one.
    await diary.store.update("Diary.md", edit);
    const search = new VaultSearch({ index: diary.index, notes: diary.store, vectors: diary.vectors, embedder: standInEmbedder(diary.server) });
    const local = await retrieveLocal(plan("repair automobile"), diary.index, diary.store, { dial: { search, level: 3 } });
    return local.rows.find((r) => r.note_path === "Diary.md")?.sections ?? [];
  }

  it("cites the section of the matched heading, found by its heading path (another section's words came under its name)", async () => {
    const cited = await citedAfter((text) => text.replace("## Monday\n\nGroceries and bread.\n\n", ""));
    expect(cited[0]).toMatchObject({ heading: "Tuesday", text: "Mend the vehicle brakes." });
    expect(cited.map((s) => s.text).join("\n")).not.toContain("gardens");
  });

  it("cites nothing of a section that is gone", async () => {
    const cited = await citedAfter((text) => text.replace("## Tuesday\n\nMend the vehicle brakes.\n\n", ""));
    expect(cited.map((s) => s.text).join("\n")).not.toMatch(/gardens|brakes/);
  });
});
