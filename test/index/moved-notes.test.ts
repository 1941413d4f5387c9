// A folder renamed moves its notes in the index unread (their words are the same; only their path's
// are new), and the index it leaves is the one a build at the new names would make: the same
// results, scores, titles, sources and problems, saved and loaded again too. A note whose rename may
// have changed what it holds (its title was its file name, it was edited since) is read.
import { describe, expect, it } from "vitest";
import { parseQuery } from "../../src/index/query";
import { UpdateQueue, type IndexUpdate, type VaultChange } from "../../src/index/update-queue";
import { VaultIndex } from "../../src/index/vault-index";
import { ControlledStore, renameFolder } from "../support/controlled-note-store";
import { laneVault } from "../support/lane-vault";
import { MemoryIndexCache } from "../support/memory-index-cache";
import { MemoryNoteStore } from "../support/memory-note-store";
import { fakeClock, FAKE_NOW } from "../support/fake-clock";
import { VaultLinks } from "../../src/index/links/vault-links";

/** Well before the fake clock's now: read at FAKE_NOW, these notes are proven by their date and size. */
const WRITTEN = FAKE_NOW - 60_000;

const TOPICS = ["lighthouse keeper", "sourdough starter", "orbital mechanics", "beekeeping hive", "violin varnish"];

/** 40 notes in Projects/ (titles from H1, property, file name; tags, sources, a BOM, a link) and 5 beside them. */
function seededStore(): ControlledStore {
  const store = new ControlledStore();
  for (let i = 0; i < 40; i++) {
    const topic = TOPICS[i % TOPICS.length];
    const head = i % 3 === 0 ? `---\ntitle: Study ${i}\nsource: https://example.org/${i}\ntags: [field${i % 4}]\n---\n` : i % 3 === 1 ? `# Heading ${i}\n\n` : "";
    const bom = i === 7 ? "\uFEFF" : "";
    store.write(`Projects/Notes ${i}.md`, `${bom}${head}About the ${topic} number${i}, see [[Notes ${(i + 1) % 40}]].\n\n## Details\n\nMore on ${topic} and #tag${i % 5}.\n`, WRITTEN);
  }
  for (let i = 0; i < 5; i++) store.write(`Elsewhere ${i}.md`, `# Elsewhere ${i}\n\nThe ${TOPICS[i]} again, and projects archive words.\n`, WRITTEN);
  return store;
}


const QUERIES = ["lighthouse", "sourdough starter", "archive", "projects", "2024", "Study 3", "Heading 4", "notes 5", "number17", "#tag2", "details varnish", "field1"];

/** What searching shows of the index: each result's path, title, tags and score. */
async function searched(index: VaultIndex, store: ControlledStore) {
  const out: unknown[] = [];
  for (const query of QUERIES) {
    const results = await index.search(query, store, { limit: 20 });
    out.push(query, results.map((r) => ({ path: r.path, title: r.title, tags: r.tags, score: Math.round(r.score * 1e6) })));
  }
  return out;
}

/** What the index holds of its notes, beside their words. */
function held(index: VaultIndex) {
  return {
    notes: index.paths().sort().map((path) => index.note(path)),
    problems: index.status().problems.sort((a, b) => (a.path < b.path ? -1 : 1)),
    sources: index.notesWithSourceUrl("https://example.org/3"),
  };
}

async function builtAt(store: ControlledStore): Promise<VaultIndex> {
  const index = new VaultIndex({ clock: fakeClock() });
  await index.sync(store, null);
  return index;
}

describe("notes renamed or moved", () => {
  it("moves a renamed folder's notes unread, leaving the index a build at the new names makes", async () => {
    const store = seededStore();
    const index = await builtAt(store);
    const renames = renameFolder(store, "Projects", "Archive/Projects 2024");
    store.reads.length = 0;
    await index.renameFiles(store, renames);
    expect(store.reads).toEqual([]);
    const fresh = await builtAt(store);
    expect(held(index)).toEqual(held(fresh));
    expect(await searched(index, store)).toEqual(await searched(fresh, store));
    expect(index.paths().filter((p) => p.startsWith("Projects/"))).toEqual([]);
  });

  it("moves a folder renamed in case only ('Projects' to 'projects'): no note left under the old spelling", async () => {
    const store = seededStore();
    const index = await builtAt(store);
    const renames = renameFolder(store, "Projects", "projects");
    store.reads.length = 0;
    await index.renameFiles(store, renames);
    expect(store.reads).toEqual([]);
    expect(index.paths().filter((p) => p.startsWith("Projects/"))).toEqual([]);
    expect(held(index)).toEqual(held(await builtAt(store)));
  });

  it("leaves the link graph following the moved notes: backlinks at the new names, none at the old", async () => {
    const store = seededStore();
    const index = await builtAt(store);
    const links = new VaultLinks();
    await links.sync(index, store);
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive"));
    await links.sync(index, store);
    expect(links.graph.backlinks("Archive/Notes 1.md")).toEqual(["Archive/Notes 0.md"]);
    expect(links.graph.has("Projects/Notes 0.md")).toBe(false);
  });

  it("saves the moved notes so that a load finds them at their new names only", async () => {
    const store = seededStore();
    const index = await builtAt(store);
    const cache = new MemoryIndexCache();
    await index.save(cache);
    await index.renameFiles(store, renameFolder(store, "Projects", "Archive"));
    await index.save(cache);
    const loaded = new VaultIndex({ clock: fakeClock() });
    store.reads.length = 0;
    const report = await loaded.sync(store, cache);
    expect(report).toMatchObject({ mode: "cache", added: 0, updated: 0, removed: 0 });
    expect(store.reads).toEqual([]);
    expect(held(loaded)).toEqual(held(await builtAt(store)));
    expect(await searched(loaded, store)).toEqual(await searched(await builtAt(store), store));
  });

  it("reads again a note whose title was its old file name, and one edited since the rename", async () => {
    const store = seededStore();
    const index = await builtAt(store);
    // Notes 2, 5, 8… have no title of their own: renamed, their title is their new name.
    const renames = renameFolder(store, "Projects", "Archive").map((r) => ({ ...r, path: r.path.replace("Notes", "Papers") }));
    for (const r of renames) store.files.set(r.path, store.files.get(r.oldPath.replace("Projects", "Archive"))!);
    for (const r of renames) store.files.delete(r.oldPath.replace("Projects", "Archive"));
    store.write("Archive/Papers 3.md", "---\ntitle: Study 3\n---\nRewritten about kites.\n", WRITTEN + 1);
    store.reads.length = 0;
    await index.renameFiles(store, renames);
    expect(store.reads.sort()).toEqual(["Archive/Papers 3.md", ...renames.filter((_, i) => i % 3 === 2).map((r) => r.path)].sort());
    expect(index.note("Archive/Papers 2.md")?.title).toBe("Papers 2");
    expect(index.note("Archive/Papers 1.md")?.title).toBe("Heading 1");
    expect((await index.search("kites", store)).map((r) => r.path)).toEqual(["Archive/Papers 3.md"]);
    expect(held(index)).toEqual(held(await builtAt(store)));
  });

  it("drops notes moved into an excluded folder, and a note the moved one replaced", async () => {
    const store = seededStore();
    const index = new VaultIndex({ clock: fakeClock(), excludedFolders: ["Private"] });
    await index.sync(store, null);
    const renames = renameFolder(store, "Projects", "Private/Projects");
    // One more: a note moved onto the name of one the index holds (which went to the trash).
    store.files.set("Elsewhere 0.md", store.files.get("Elsewhere 1.md")!);
    store.files.delete("Elsewhere 1.md");
    await index.renameFiles(store, [...renames, { oldPath: "Elsewhere 1.md", path: "Elsewhere 0.md" }]);
    expect(index.paths().sort()).toEqual(["Elsewhere 0.md", "Elsewhere 2.md", "Elsewhere 3.md", "Elsewhere 4.md"]);
    expect(index.note("Elsewhere 0.md")?.title).toBe("Elsewhere 1");
    expect((await index.search("lighthouse", store)).map((r) => r.path)).toEqual([]);
  });

  it("gives moved notes the vault language's vectors that reading them gives", async () => {
    const notes = laneVault();
    const make = async () => {
      const store = new MemoryNoteStore(notes);
      const index = new VaultIndex();
      await index.sync(store, null);
      await index.languageSettled();
      return { store, index };
    };
    const [moved, read] = [await make(), await make()];
    const renames = Object.keys(notes)
      .filter((p) => p.startsWith("t0/"))
      .map((oldPath) => ({ oldPath, path: `kept/${oldPath}` }));
    for (const { store } of [moved, read]) {
      for (const r of renames) {
        store.files.set(r.path, store.files.get(r.oldPath)!);
        store.files.delete(r.oldPath);
      }
    }
    let reads = 0;
    const readText = moved.store.read.bind(moved.store);
    moved.store.read = (p) => (reads++, readText(p));
    await moved.index.renameFiles(moved.store, renames);
    expect(reads).toBe(0);
    // One at a time, each note is read.
    for (const r of renames) await read.index.renameFile(read.store, r.oldPath, r.path);
    const ranked = (index: VaultIndex) =>
      index.rank(parseQuery("pelican"), 40).map((h) => ({ path: h.path, score: h.score.toFixed(6), lane: h.explanation.vaultLanguage?.similarity.toFixed(6) }));
    expect(moved.index.status().vaultLanguage).toBe("ready");
    expect(ranked(moved.index)).toEqual(ranked(read.index));
    expect(ranked(moved.index).some((h) => h.path.startsWith("kept/t0/") && h.lane !== undefined && h.score === (0).toFixed(6))).toBe(true);
  });

  it("keeps the index the one a build makes through any mix of folder renames, moves, edits, deletes and creations (seeded)", async () => {
    for (let seed = 1; seed <= 30; seed++) {
      const random = seededRandom(seed);
      const store = new ControlledStore();
      let version = 0;
      /** A note's text: a title of its own or none (its file name then), and a word of this version only. */
      const write = (path: string) => {
        version++;
        store.write(path, `${version % 2 === 0 ? `# Heading ${version}\n\n` : ""}Words of version${version}.\n`, WRITTEN + version);
      };
      for (const folder of ["Alpha", "Beta"]) for (let i = 0; i < 20; i++) write(`${folder}/n${i}.md`);
      const index = await builtAt(store);
      const queue = new UpdateQueue({ clock: fakeClock(), apply: (steps) => applyAsTheKeeperDoes(index, store, steps) });
      const events: VaultChange[] = [];
      const push = (change: VaultChange) => (events.push(change), queue.push(change));
      for (let n = 0; n < 12; n++) {
        const paths = [...store.files.keys()];
        const path = paths[Math.floor(random() * paths.length)];
        const roll = random();
        if (roll < 0.3 && paths.length > 0) {
          // A folder renamed: each of its files reported renamed, their dates kept.
          const from = path.slice(0, path.indexOf("/"));
          const to = ["Alpha", "Beta", "Gamma", "Delta", "Alpha/Sub"].find((f) => f !== from && !f.startsWith(`${from}/`) && !paths.some((p) => p.startsWith(`${f}/`)));
          if (to) for (const r of renameFolder(store, from, to)) push({ kind: "rename", ...r });
        } else if (roll < 0.5 && path) {
          write(path);
          push({ kind: "modify", path });
        } else if (roll < 0.7 && path) {
          // A note renamed, perhaps over another (reported as that one's delete first).
          const target = paths[Math.floor(random() * paths.length)].replace(/n(\d+)\.md$/, (_, d) => `m${d}.md`);
          if (target !== path) {
            if (store.files.has(target)) push({ kind: "delete", path: target });
            store.files.set(target, store.files.get(path)!);
            store.files.delete(path);
            push({ kind: "rename", oldPath: path, path: target });
          }
        } else if (roll < 0.8 && path) {
          store.files.delete(path);
          push({ kind: "delete", path });
        } else {
          const created = `Gamma/new${n}.md`;
          write(created);
          push({ kind: "create", path: created });
        }
        if (random() < 0.3) await queue.flush();
      }
      await queue.flush();
      const fresh = await builtAt(store);
      const context = `seed ${seed}: ${JSON.stringify(events)}`;
      expect(held(index), context).toEqual(held(fresh));
      const words = [...Array.from({ length: version }, (_, v) => `version${v + 1}`), "alpha", "beta", "gamma", "delta", "sub", "n3", "m7", "new5"];
      for (const word of words) {
        // Every note it finds, by path and title. Not by score: a note that left keeps its postings until
        // MiniSearch cleans them up, and until then they count for how rare a word is (read or moved alike).
        const found = (i: VaultIndex) =>
          i
            .rank(parseQuery(word), 100)
            .map((r) => `${r.path} · ${i.note(r.path)?.title}`)
            .sort();
        expect(found(index), context).toEqual(found(fresh));
      }
    }
  });
});

/** A batch applied as IndexKeeper applies one: the renames together, then removals and reads. */
async function applyAsTheKeeperDoes(index: VaultIndex, store: ControlledStore, steps: IndexUpdate[]): Promise<void> {
  const readAfter = new Set(steps.flatMap((s) => (s.kind === "update" ? [s.path] : [])));
  await index.renameFiles(
    store,
    steps.flatMap((s) => (s.kind === "rename" ? [s] : [])),
    readAfter,
  );
  for (const step of steps) {
    if (step.kind === "remove") index.removeFile(step.path);
    else if (step.kind === "update") await index.updateFile(store, step.path);
  }
}

/** A small seeded random source: the same seed, the same run. */
function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}
