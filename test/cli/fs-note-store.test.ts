// FsNoteStore's writes: inside the vault as it really is on disk, whole or not at all, never over
// an entry of any kind, and rewrites that keep every concurrent change. (Listing and reading are
// pinned in index-search-adapters.test.ts; the attacks on these rules in test/hostile/.)
import { existsSync, linkSync, mkdirSync, mkdtempSync, promises as fsPromises, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsNoteStore, isWithin, withLock } from "../../src/cli/fs-note-store";

let tmp: string;
let vault: string;
let outside: string;

beforeEach(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "vr-fs-store-"));
  vault = path.join(tmp, "vault");
  outside = path.join(tmp, "outside");
  mkdirSync(vault);
  mkdirSync(outside);
  writeFileSync(path.join(vault, "Home.md"), "# Home\n");
});

afterEach(() => rmSync(tmp, { recursive: true, force: true }));

const entries = (dir: string) => readdirSync(dir).sort();

describe("FsNoteStore.create", () => {
  it("makes missing folders one by one and leaves no temporary file behind", async () => {
    await new FsNoteStore(vault).create("Research/Traces/Run.md", "# Run\n");
    expect(readFileSync(path.join(vault, "Research/Traces/Run.md"), "utf8")).toBe("# Run\n");
    expect(entries(path.join(vault, "Research/Traces"))).toEqual(["Run.md"]);
  });

  it("refuses a folder that is a link out of the vault, and creates nothing there", async () => {
    symlinkSync(outside, path.join(vault, "Research"));
    await expect(new FsNoteStore(vault).create("Research/Traces/Run.md", "x")).rejects.toMatchObject({ kind: "outside_vault" });
    expect(entries(outside)).toEqual([]);
  });

  it("writes through a link to a folder that is inside the vault", async () => {
    mkdirSync(path.join(vault, "Real"));
    symlinkSync(path.join(vault, "Real"), path.join(vault, "Research"));
    await new FsNoteStore(vault).create("Research/Run.md", "x");
    expect(readFileSync(path.join(vault, "Real/Run.md"), "utf8")).toBe("x");
  });

  it("never replaces an entry of any kind: a note, a link, a dangling link", async () => {
    const store = new FsNoteStore(vault);
    symlinkSync(path.join(outside, "target.md"), path.join(vault, "Dangling.md"));
    symlinkSync(path.join(vault, "Home.md"), path.join(vault, "Link.md"));
    for (const name of ["Home.md", "Dangling.md", "Link.md"]) await expect(store.create(name, "replaced")).rejects.toMatchObject({ kind: "exists" });
    expect(readFileSync(path.join(vault, "Home.md"), "utf8")).toBe("# Home\n");
    expect(existsSync(path.join(outside, "target.md"))).toBe(false);
    expect(await store.exists("Dangling.md")).toBe(true);
  });

  it("lets exactly one of many simultaneous creates of one name win", async () => {
    const store = new FsNoteStore(vault);
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.create("Same.md", `writer ${i}\n`)));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(readFileSync(path.join(vault, "Same.md"), "utf8")).toMatch(/^writer \d\n$/);
    expect(entries(vault)).toEqual(["Home.md", "Same.md"]);
  });
});

describe("FsNoteStore.rewrite", () => {
  it("replaces the text through a new file renamed into place, keeping the file's mode", async () => {
    const store = new FsNoteStore(vault);
    const file = path.join(vault, "Home.md");
    const before = statSync(file);
    await store.rewrite("Home.md", (text) => `${text}more\n`);
    expect(readFileSync(file, "utf8")).toBe("# Home\nmore\n");
    expect(statSync(file).ino).not.toBe(before.ino);
    expect(statSync(file).mode).toBe(before.mode);
    expect(entries(vault)).toEqual(["Home.md"]);
  });

  it("keeps every change of concurrent rewrites of one note", async () => {
    const store = new FsNoteStore(vault);
    await Promise.all(Array.from({ length: 12 }, (_, i) => store.rewrite("Home.md", (text) => `${text}line ${i}\n`)));
    const lines = readFileSync(path.join(vault, "Home.md"), "utf8").trim().split("\n");
    expect(lines).toHaveLength(13);
    expect(new Set(lines.slice(1))).toEqual(new Set(Array.from({ length: 12 }, (_, i) => `line ${i}`)));
  });

  it("takes over a lock a dead process left behind", async () => {
    const lock = path.join(vault, ".Home.md.vault-research-lock");
    writeFileSync(lock, "99999");
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    await new FsNoteStore(vault).rewrite("Home.md", () => "new\n");
    expect(readFileSync(path.join(vault, "Home.md"), "utf8")).toBe("new\n");
    expect(existsSync(lock)).toBe(false);
  });

  it("takes over a stale lock even when a dead process also left its takeover half done", async () => {
    const lock = path.join(vault, ".Home.md.vault-research-lock");
    const old = new Date(Date.now() - 60_000);
    for (const file of [lock, `${lock}-takeover`]) {
      writeFileSync(file, "99999");
      utimesSync(file, old, old);
    }
    await new FsNoteStore(vault).rewrite("Home.md", () => "new\n");
    expect(readFileSync(path.join(vault, "Home.md"), "utf8")).toBe("new\n");
    expect(entries(vault)).toEqual(["Home.md"]);
  });

  it("keeps every change when several rewrites find one stale lock at once, in 100 rounds", async () => {
    // A round is a note whose writers all find its stale lock; only one may take it over. Each
    // writer starts a few file operations late, so that one judges the lock stale while another
    // is taking it over. The rounds run side by side, so the test stays fast.
    const store = new FsNoteStore(vault);
    const startLate = async () => {
      for (let ops = Math.floor(Math.random() * 5); ops > 0; ops--) await fsPromises.stat(vault);
    };
    const writers = 4;
    const old = new Date(Date.now() - 60_000);
    const notes = Array.from({ length: 100 }, (_, n) => `Race ${n}.md`);
    for (const name of notes) {
      writeFileSync(path.join(vault, name), "# Race\n");
      const lock = path.join(vault, `.${name}.vault-research-lock`);
      writeFileSync(lock, "99999");
      utimesSync(lock, old, old);
    }
    await Promise.all(notes.flatMap((name) => Array.from({ length: writers }, (_, i) => startLate().then(() => store.rewrite(name, (text) => `${text}line ${i}\n`)))));
    const lost = notes.filter((name) => readFileSync(path.join(vault, name), "utf8").trim().split("\n").length !== writers + 1);
    expect(lost).toEqual([]);
    expect(entries(vault).filter((e) => e.startsWith("."))).toEqual([]);
  });

  it("keeps a live writer's lock fresh: a writer held up past the stale age is not taken over", async () => {
    const file = path.join(vault, "Home.md");
    const spans: Array<[string, number, number]> = [];
    const holder = (name: string, ms: number) =>
      withLock(
        file,
        async () => {
          const start = Date.now();
          await new Promise((resolve) => setTimeout(resolve, ms));
          spans.push([name, start, Date.now()]);
        },
        150,
      );
    const slow = holder("slow", 700);
    await new Promise((resolve) => setTimeout(resolve, 40));
    await Promise.all([slow, holder("late", 10)]);
    const [first, second] = spans;
    expect(first[0]).toBe("slow");
    expect(second[1]).toBeGreaterThanOrEqual(first[2]);
    expect(entries(vault)).toEqual(["Home.md"]);
  });

  it("does not write, nor remove the lock, when its lock was taken over while it was held up", async () => {
    const lock = path.join(vault, ".Home.md.vault-research-lock");
    const store = new FsNoteStore(vault);
    const taking = store.rewrite("Home.md", (text) => {
      // Another process judged this writer dead and took its lock over.
      writeFileSync(lock, "another-writer");
      return `${text}mine\n`;
    });
    await expect(taking).rejects.toMatchObject({ kind: "busy" });
    expect(readFileSync(path.join(vault, "Home.md"), "utf8")).toBe("# Home\n");
    expect(readFileSync(lock, "utf8")).toBe("another-writer");
    expect(entries(vault)).toEqual([".Home.md.vault-research-lock", "Home.md"]);
  });

  it("refuses a note that is a link to a file outside the vault, and leaves that file alone", async () => {
    writeFileSync(path.join(outside, "theirs.md"), "theirs\n");
    symlinkSync(path.join(outside, "theirs.md"), path.join(vault, "Theirs.md"));
    await expect(new FsNoteStore(vault).rewrite("Theirs.md", () => "changed")).rejects.toMatchObject({ kind: "outside_vault" });
    expect(readFileSync(path.join(outside, "theirs.md"), "utf8")).toBe("theirs\n");
  });

  it("rewrites only the vault's own name of a hard-linked file: its other names keep their text", async () => {
    linkSync(path.join(vault, "Home.md"), path.join(vault, "Twin.md"));
    await new FsNoteStore(vault).rewrite("Twin.md", () => "twin\n");
    expect(readFileSync(path.join(vault, "Twin.md"), "utf8")).toBe("twin\n");
    expect(readFileSync(path.join(vault, "Home.md"), "utf8")).toBe("# Home\n");
  });
});

describe("isWithin: a vault at the top of a drive", () => {
  it("holds every path below a root that ends in its separator (`/`, as `E:\\` on Windows), and nothing beside a root that does not", () => {
    expect(isWithin("/Research/Traces/Run.md", "/")).toBe(true);
    expect(isWithin("/", "/")).toBe(true);
    expect(isWithin("/vault/Notes/a.md", "/vault")).toBe(true);
    expect(isWithin("/vault-other/a.md", "/vault")).toBe(false);
    expect(isWithin("/elsewhere/a.md", "/vault/")).toBe(false);
  });
});
