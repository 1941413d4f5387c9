// Larger vaults for the bench, made of renamed copies of a real one: copy k of `dir/note.md` is
// `copy-k/dir/note k.md`, byte for byte. The vocabulary does not grow with the copies (only file
// names change), so a figure at 100,000 notes says how the index scales with notes, not words.
// Written once to the OS temp folder and reused while its marker says it is complete and copied from
// the same folder (another --vault gets its own copies, not the last run's).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

function markdownFiles(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...markdownFiles(dir, child));
    else if (entry.name.toLowerCase().endsWith(".md")) out.push(child);
  }
  return out.sort();
}

/** A folder of `count` notes: the source's notes, then renamed copies of them until there are enough. */
export function renamedCopies(source: string, count: number, root = os.tmpdir()): string {
  const dir = path.join(root, `vault-research-bench-copies-${count}`);
  const marker = path.join(dir, ".complete");
  if (existsSync(marker) && readFileSync(marker, "utf8") === markerText(count, source)) return dir;
  rmSync(dir, { recursive: true, force: true });
  const files = markdownFiles(source);
  if (files.length === 0) throw new Error(`${source} holds no notes to copy`);
  let made = 0;
  for (let copy = 0; made < count; copy++) {
    for (const file of files) {
      if (made === count) break;
      const target = copy === 0 ? file : `copy-${copy}/${file.replace(/\.md$/i, ` ${copy}.md`)}`;
      mkdirSync(path.dirname(path.join(dir, target)), { recursive: true });
      copyFileSync(path.join(source, file), path.join(dir, target));
      made++;
    }
  }
  writeFileSync(marker, markerText(made, source));
  return dir;
}

function markerText(notes: number, source: string): string {
  return `${notes} notes: renamed copies of ${path.resolve(source)}\n`;
}
