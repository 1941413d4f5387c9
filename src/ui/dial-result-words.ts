// A dial result explained in words: which part of the note matched, and (behind "Show scores")
// how each lane ranked it and where the rerank moved it — the explanation the engine attaches to
// every result (index/dial/dial-types.ts), never recomputed here.
import type { DialResult, DialSection, LaneName } from "../index/dial/dial-types";
import { roundTo } from "../text/numbers";

export const LANE_WORDS: Record<LaneName, string> = {
  lexical: "Words",
  note_vector: "Whole note by meaning",
  section_vector: "Closest part by meaning",
};

/** "Archives › Extract" for a word match; "Matched section: Archives › Extract" (or its title, its headings) by meaning. */
export function sectionWords(section: DialSection): string {
  const path = section.headingPath.join(" › ");
  if (section.from === "lexical") return path;
  if (section.unit === "title") return "Matched by its title";
  if (section.unit === "headings") return "Matched by its headings";
  return path === "" ? "Matched section: the note's opening" : `Matched section: ${path}`;
}

/** "1st", "2nd", "3rd", "11th". */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
  return `${n}${suffix}`;
}

/** "moved up 3 (5th → 2nd)", "moved down 1 (2nd → 3rd)", "kept 1st". */
export function rerankMoveWords(rerank: { before: number; after: number }): string {
  const { before, after } = rerank;
  if (before === after) return `kept ${ordinal(after)}`;
  const way = after < before ? "up" : "down";
  return `moved ${way} ${Math.abs(before - after)} (${ordinal(before)} → ${ordinal(after)})`;
}

/** The best similarity a vector lane gave the result, or null when only its words matched. */
export function similarityOf(result: DialResult): number | null {
  const vector = result.explanation.lanes.filter((l) => l.lane !== "lexical").map((l) => l.score);
  return vector.length > 0 ? Math.max(...vector) : null;
}

/** The vault-language lane's line: it moves notes among the words' results (a note only it found has no words' line). */
export const MEANING_WORDS = "Meaning in this vault";

/**
 * One line per lane ("Words: 2nd · score 3.41"), the vault language's rank when it moved the note
 * (so a lower words' score above a higher one says why), the fused score, and the rerank's move.
 */
export function scoreLines(result: DialResult): string[] {
  const lines = result.explanation.lanes.map((lane) => {
    const score = lane.lane === "lexical" ? `score ${roundTo(lane.score, 2)}` : `similarity ${roundTo(lane.score, 2)}`;
    return `${LANE_WORDS[lane.lane]}: ${ordinal(lane.rank)} · ${score}`;
  });
  const meaning = result.lexical?.explanation.vaultLanguage;
  if (meaning) {
    const after = result.explanation.lanes.findIndex((l) => l.lane === "lexical") + 1;
    lines.splice(after, 0, `${MEANING_WORDS}: ${ordinal(meaning.rank)} · similarity ${roundTo(meaning.similarity, 2)}`);
  }
  const fused = result.explanation.lanes.some((l) => l.contribution > 0);
  if (fused) lines.push(`Fused (RRF): ${roundTo(result.score, 4)}`);
  const rerank = result.explanation.rerank;
  if (rerank) lines.push(`Rerank by ${rerank.model}: ${rerankMoveWords(rerank)}`);
  return lines;
}

/** The score lines as a list; shown only while "Show scores" is on (the stylesheet hides it otherwise). */
export function renderDialScores(el: HTMLElement, result: DialResult): void {
  const list = el.createEl("ul", { cls: "vault-research-dial-score-list" });
  for (const line of scoreLines(result)) list.createEl("li", { text: line });
}
