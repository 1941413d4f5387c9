// The dial bench: the search modal, the comparison view and the research panel's composer, in a
// real browser, over the real dial engine (VaultIndex + VaultSearch) on the sample vault — with a
// deterministic stand-in embedder (words hashed into 64 dimensions, so a query sharing no word
// with any note is close to none of them) and a stand-in rerank model (orders by query words in
// the title), so every level runs here as it would with Ollama and a chat model. Query parameters:
//   theme=light|dark · ready=1|3|4 (1: no embedding model; 3: no chat model) · rerank=ok|fail
//   · holdRerank=1 (the rerank answers only once `bench.releaseRerank()` is called) · layout=phone (the panel is the screen, `is-phone`)
//   · longTitles=1 (notes more, about CRDT merges, named as a real vault names them: one long word, Arabic, Hebrew, emoji)
// The promote picker opens over outside-vault rows with the same long names (`bench.openPromote()`).
// What tests check is on `window.bench`.
import { App, Vault, WorkspaceLeaf } from "../../stubs/obsidian";
import type { App as ObsidianApp, WorkspaceLeaf as ObsidianLeaf } from "obsidian";
import { VaultSearch } from "../../../src/index/dial/vault-search";
import type { RerankModel } from "../../../src/index/dial/rerank";
import type { Embedder } from "../../../src/index/embeddings/embedder";
import { EmbeddingJob } from "../../../src/index/embeddings/embedding-job";
import { VectorStore } from "../../../src/index/embeddings/vector-store";
import { VaultIndex } from "../../../src/index/vault-index";
import { foldCase, words } from "../../../src/index/tokenize";
import { ObsidianNoteStore } from "../../../src/plugin/obsidian-note-store";
import { systemClock, type Clock } from "../../../src/ports";
import { defaultSettings } from "../../../src/settings";
import { ComparisonView } from "../../../src/ui/comparison-view";
import { ResearchView, type RunDeps } from "../../../src/ui/research-view";
import { PromoteResultModal } from "../../../src/ui/promote-modal";
import { VaultSearchModal } from "../../../src/ui/search-modal";
import { outsideRow } from "../../support/pack-fixtures";
import { engineDialHost } from "../../ui/dial/fake-dial-host";
import { LONG_TITLES } from "./long-titles";

declare const BENCH_VAULT: Record<string, string>;

const params = new URLSearchParams(location.search);
const ready = Number(params.get("ready") ?? "4");
const rerankFails = params.get("rerank") === "fail";
const holdRerank = params.get("holdRerank") === "1";
/** Resolves when the test lets the held rerank answer: a gate, not a delay, so a slow machine sees the same state. */
let releaseRerank: () => void = () => {};
const rerankReleased = new Promise<void>((resolve) => (releaseRerank = resolve));
const DIMENSIONS = 64;

/** Words hashed into a unit vector: notes sharing words are close; a query sharing none is near none. */
const hashingEmbedder: Embedder = {
  name: "bench:hashed-words",
  async embed(texts) {
    const vectors = texts.map((text) => {
      const v = new Float32Array(DIMENSIONS);
      for (const word of words(text).map(foldCase)) {
        let h = 2166136261;
        for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
        v[(h >>> 0) % DIMENSIONS] += 1;
        v[(h >>> 8) % DIMENSIONS] += 0.5;
      }
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
    return { ok: true, vectors, dimensions: DIMENSIONS };
  },
};

/** Orders the candidates by how many query words their title holds (ties keep level 3's order). */
const rerankModel: RerankModel = {
  name: "bench-model",
  async complete({ messages }) {
    if (holdRerank) await rerankReleased;
    if (rerankFails) throw new Error("the model server answered 500");
    const prompt = messages[0].content;
    const query = new Set(words(prompt.split("\n")[0]).map(foldCase));
    const titles = [...prompt.matchAll(/^\[(\d+)\] ([^\n>]*)/gm)].map((m) => ({ n: Number(m[1]), hits: words(m[2]).map(foldCase).filter((w) => query.has(w)).length }));
    const order = [...titles].sort((a, b) => b.hits - a.hits || a.n - b.n).map((t) => t.n);
    return { text: JSON.stringify({ order }) };
  },
};

async function start() {
  const vault = new Vault("Sample vault");
  for (const [path, text] of Object.entries(BENCH_VAULT)) vault.seed(path, text, Date.UTC(2026, 0, 1));
  if (params.get("longTitles") === "1") {
    LONG_TITLES.forEach((title, i) => vault.seed(`Long titles/${title}.md`, `# ${title}\n\nCRDT merge notes, part ${i + 1}: how replicas merge concurrent edits offline and sync later.\n`, Date.UTC(2026, 0, 1)));
  }
  const app = new App({ vault, appId: "dial-bench" });
  const notes = new ObsidianNoteStore(app.vault as never);
  const index = new VaultIndex();
  await index.sync(notes, null);
  const vectors = new VectorStore();
  if (ready > 1) await new EmbeddingJob({ store: vectors, embedder: hashingEmbedder, notes }).run(index.paths().map((p) => index.note(p)!));
  // A clock that moves 4 ms each time it is read: latencies read the same on every run, so screenshots compare.
  let readings = 0;
  const clock: Clock = { now: () => (readings += 4), sleep: (ms, signal) => systemClock.sleep(ms, signal) };
  const search = new VaultSearch({
    index,
    notes,
    clock,
    vectors: ready > 1 ? vectors : null,
    embedder: ready > 1 ? hashingEmbedder : null,
    rerankModel: ready > 3 ? rerankModel : null,
  });
  const host = engineDialHost(search);
  return { app, host };
}

function setTheme(theme: "light" | "dark"): void {
  document.body.removeClass("theme-light", "theme-dark");
  document.body.addClass(`theme-${theme}`);
}

void start().then(({ app, host }) => {
  const main = document.body.createDiv("bench-main");
  const sidebar = document.body.createDiv("bench-sidebar");
  const bench = {
    ready: true,
    host,
    openedLinks: () => app.workspace.openedLinks.map((l) => l.linktext),
    releaseRerank: () => releaseRerank(),
    setTheme,
    openSearch(): void {
      new VaultSearchModal(app as unknown as ObsidianApp, host).open();
    },
    /** The promote picker over web results named at length (a long word, Arabic, Hebrew, a 200-character host), two already saved. */
    openPromote(): void {
      const rows = LONG_TITLES.map((title, i) => ({
        row: outsideRow(i % 2 ? "brave" : "exa", `https://${i === 0 ? "sub.".repeat(40) : ""}example-${i}.org/${title.length}`, title, "A snippet."),
        ...(i < 2 ? { promotedTo: `Sources/${title}.md` } : {}),
      }));
      new PromoteResultModal(app as unknown as ObsidianApp, rows, () => {}).open();
    },
    async openComparison(query: string): Promise<void> {
      main.empty();
      const view = new ComparisonView(new WorkspaceLeaf(app) as unknown as ObsidianLeaf, host);
      main.appendChild(view.containerEl);
      view.load();
      await (view as unknown as { onOpen(): Promise<void> }).onOpen();
      if (query) await view.compare(query);
    },
    async openPanel(): Promise<void> {
      sidebar.empty();
      const view = new ResearchView(new WorkspaceLeaf(app) as unknown as ObsidianLeaf, {
        settings: defaultSettings(),
        runResearch: () => new Promise(() => {}),
        prepareRun: async () => ({ ok: true, deps: {} as RunDeps }),
        dial: host,
      });
      sidebar.appendChild(view.containerEl);
      view.load();
      await (view as unknown as { onOpen(): Promise<void> }).onOpen();
    },
  };
  (window as unknown as { bench: typeof bench }).bench = bench;
  setTheme(params.get("theme") === "dark" ? "dark" : "light");
  if (params.get("layout") === "phone") document.body.addClass("is-phone", "is-mobile", "bench-phone");
  document.body.addClass("bench-ready");
});
