// The comparator: plain MiniSearch as a plugin would use it out of the box — fields title (the file
// name) and text (the raw file), default options, default search — over the same files, listed and
// read the same way as ours, and saved and loaded as MiniSearch's own JSON.
import MiniSearch from "minisearch";
import { readFileSync, writeFileSync } from "node:fs";
import type { FsNoteStore } from "../src/cli/fs-note-store";
import { readNotes } from "../src/index/read-notes";

export const PLAIN_OPTIONS = { fields: ["title", "text"] };

/** Lists the vault, reads every note and adds them all: the cold index, as ours does it. */
export async function buildPlain(store: FsNoteStore): Promise<MiniSearch> {
  const files = await store.list();
  const texts = await readNotes(
    store,
    files.map((f) => f.path),
  );
  const engine = new MiniSearch(PLAIN_OPTIONS);
  engine.addAll(files.map((f, id) => ({ id, title: f.path.replace(/^.*\//, "").replace(/\.md$/i, ""), text: typeof texts[id] === "string" ? texts[id] : "" })));
  return engine;
}

/** Saves as MiniSearch documents it: the whole index as one JSON string. Returns its bytes. */
export function savePlain(engine: MiniSearch, file: string): number {
  const json = JSON.stringify(engine);
  writeFileSync(file, json);
  return Buffer.byteLength(json);
}

export function loadPlain(file: string): MiniSearch {
  return MiniSearch.loadJSON(readFileSync(file, "utf8"), PLAIN_OPTIONS);
}

/** A stand-alone script: a fresh Node process that loads the saved JSON and searches once. */
export function plainSearchOnceScript(minisearchPath: string): string {
  return [
    `const loaded = require(${JSON.stringify(minisearchPath)});`,
    `const MiniSearch = loaded.default ?? loaded;`,
    `const [file, query] = process.argv.slice(2);`,
    `const engine = MiniSearch.loadJSON(require("node:fs").readFileSync(file, "utf8"), ${JSON.stringify(PLAIN_OPTIONS)});`,
    `process.stdout.write(JSON.stringify(engine.search(query).slice(0, 10).map((r) => r.id)) + "\\n");`,
  ].join("\n");
}
