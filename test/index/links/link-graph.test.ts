import { describe, expect, it } from "vitest";
import { LinkGraph } from "../../../src/index/links/link-graph";

function graphOf(notes: { path: string; links?: string[]; names?: string[] }[]): LinkGraph {
  const graph = new LinkGraph();
  for (const n of notes) graph.setNote({ path: n.path, links: n.links ?? [], names: n.names ?? [] });
  return graph;
}

describe("LinkGraph resolves links the way Obsidian does", () => {
  it("by path from the vault root, with or without .md, in any case", () => {
    const g = graphOf([{ path: "a.md", links: ["Folder/Note", "folder/note.md"] }, { path: "Folder/Note.md" }]);
    expect(g.resolve("Folder/Note", "a.md")).toBe("Folder/Note.md");
    expect(g.resolve("FOLDER/NOTE.MD", "a.md")).toBe("Folder/Note.md");
    expect(g.outlinks("a.md")).toEqual(["Folder/Note.md"]);
  });

  it("relative markdown links from the linking note's folder", () => {
    const g = graphOf([{ path: "docs/guide/start.md", links: ["../reference/api.md", "./next.md"] }, { path: "docs/reference/api.md" }, { path: "docs/guide/next.md" }]);
    expect(g.outlinks("docs/guide/start.md")).toEqual(["docs/reference/api.md", "docs/guide/next.md"]);
  });

  it("by a file name; when several notes share it, the one in the linking note's folder, else the shortest path", () => {
    const g = graphOf([{ path: "x.md", links: ["Tar", "index"] }, { path: "tools/tar.md" }, { path: "projects/a/index.md" }, { path: "b/index.md" }, { path: "projects/a/plan.md" }]);
    expect(g.resolve("Tar", "x.md")).toBe("tools/tar.md");
    expect(g.resolve("index", "x.md")).toBe("b/index.md");
    expect(g.resolve("index", "projects/a/plan.md")).toBe("projects/a/index.md");
    expect(g.outlinks("x.md")).toEqual(["tools/tar.md", "b/index.md"]);
  });

  it("by the names other tools give a page: Logseq's namespaces (`a/b` in `a___b.md`), SilverBullet's `page@position`", () => {
    const g = graphOf([{ path: "pages/Whiteboard___Action Bar.md" }, { path: "Outline Stress Test.md" }]);
    expect(g.resolve("Whiteboard/Action Bar", "pages/x.md")).toBe("pages/Whiteboard___Action Bar.md");
    expect(g.resolve("Outline Stress Test@1458", "x.md")).toBe("Outline Stress Test.md");
    expect(g.backlinks("Outline Stress Test.md")).toEqual([]);
    g.setNote({ path: "y.md", links: ["Outline Stress Test@12", "whiteboard/action bar"], names: [] });
    expect(g.outlinks("y.md")).toEqual(["Outline Stress Test.md", "pages/Whiteboard___Action Bar.md"]);
    expect(g.backlinks("Outline Stress Test.md")).toEqual(["y.md"]);
    expect(g.backlinks("pages/Whiteboard___Action Bar.md")).toEqual(["y.md"]);
  });

  it("by the end of a longer path when the file name alone is shared", () => {
    const g = graphOf([{ path: "x.md", links: ["b/index"] }, { path: "docs/a/index.md" }, { path: "docs/b/index.md" }]);
    expect(g.resolve("b/index", "x.md")).toBe("docs/b/index.md");
  });

  it("by an alias only one note carries, after paths and file names", () => {
    const g = graphOf([{ path: "x.md", links: ["Backlinks pane", "Shared alias"] }, { path: "plugins/backlinks.md", names: ["Backlinks pane"] }, { path: "p.md", names: ["Shared alias"] }, { path: "q.md", names: ["shared alias"] }]);
    expect(g.outlinks("x.md")).toEqual(["plugins/backlinks.md"]);
  });

  it("a link to itself or to nothing is left out", () => {
    const g = graphOf([{ path: "x.md", links: ["x", "missing note"] }]);
    expect(g.outlinks("x.md")).toEqual([]);
  });
});

describe("LinkGraph backlinks and changes", () => {
  it("lists the notes that link to a note, by any name that resolves to it", () => {
    const g = graphOf([{ path: "a.md", links: ["tools/tar"] }, { path: "b.md", links: ["Tar archives"] }, { path: "c.md", links: ["tar"] }, { path: "tools/tar.md", names: ["Tar archives"] }, { path: "d.md", links: ["other"] }]);
    expect(g.backlinks("tools/tar.md")).toEqual(["a.md", "b.md", "c.md"]);
  });

  it("a note added later with the same file name and a shorter path takes an older bare link; removing it gives the link back", () => {
    const g = graphOf([{ path: "a.md", links: ["notes"] }, { path: "one/notes.md" }]);
    expect(g.backlinks("one/notes.md")).toEqual(["a.md"]);
    g.setNote({ path: "x/notes.md", links: [], names: [] });
    expect(g.backlinks("one/notes.md")).toEqual([]);
    expect(g.backlinks("x/notes.md")).toEqual(["a.md"]);
    g.removeNote("x/notes.md");
    expect(g.backlinks("one/notes.md")).toEqual(["a.md"]);
  });

  it("a note set again replaces its links; a removed note links nowhere and is linked from nowhere", () => {
    const g = graphOf([{ path: "a.md", links: ["b"] }, { path: "b.md" }, { path: "c.md" }]);
    g.setNote({ path: "a.md", links: ["c"], names: [] });
    expect(g.outlinks("a.md")).toEqual(["c.md"]);
    expect(g.backlinks("b.md")).toEqual([]);
    g.removeNote("c.md");
    expect(g.outlinks("a.md")).toEqual([]);
    expect(g.has("c.md")).toBe(false);
    expect(g.size).toBe(2);
  });
});
