// `vault-research search "<query>"`: the vault's best notes for a query through the search dial
// (--level 1–4), as text a person reads (title, path, score, the matched sections with the matched
// words highlighted, why it matched) or as one `vault_search.v1` object. A level that could not
// run says which level ran and why; every search goes to the query log in the cache folder.
import type { DialResponse, DialResult } from "../index/dial/dial-types";
import { NAMED_PART } from "../index/ranking/note-names";
import type { SearchResult } from "../index/types";
import type { Http } from "../ports";
import { questionRead } from "../text/cut-text";
import { flag, has, intFlag, UsageError, type ParsedArgs } from "./args";
import type { CommandIo } from "./cli-io";
import { dialSearchJson } from "./json/vault-search-json";
import { openVault, readSettings } from "./open-vault";
import { readQuestion } from "./question-input";
import { levelWords, noticeLines, openDial, readEmbedConfig, readLevel, readModelConfig, shownNotices, type SaidNotice } from "./search-dial";
import { terminalJson, visibleName } from "./terminal-text";
import { styled, type StyledText } from "./terminal-style";

/** `http`: the embedding and chat clients' (tests bring a recording one). */
export async function searchCommand(args: ParsedArgs, io: CommandIo, http?: Http): Promise<number> {
  const query = await readQuestion(args, io);
  if (!query) throw new UsageError('search needs a query, e.g. vault-research search "daily notes" --vault DIR');
  const limit = intFlag(args, "limit", 1, 200) ?? 10;
  const settings = readSettings(args, io);
  const choice = { level: readLevel(args, settings, "search"), embed: readEmbedConfig(args, settings), model: readModelConfig(args, settings) };
  const opened = await openVault(args, io, settings);
  // The settings' chat model without its key leaves level 4 to run as level 3 (a notice says why); --model's stops the command.
  const dial = await openDial(opened, choice, { surface: "cli", log: true, http, env: io.env, clock: io.clock, rerankOptional: flag(args, "model") === undefined });
  const response = await dial.search.search({ query, level: choice.level, limit });
  if (dial.queryLog.problem) io.err(`warning: ${dial.queryLog.problem}\n`);
  // What loading the vectors found goes first, in the text and the JSON alike.
  const notices = shownNotices(response.notices, dial);
  if (has(args, "json")) {
    io.out(`${terminalJson({ ...dialSearchJson({ query, limit }, response), notices })}\n`);
    return 0;
  }
  io.outStyled([...levelHeader(response, notices), ...(response.ranLevel === 1 ? searchResultText(query, lexicalOf(response.results)) : dialResultText(query, response))]);
  return 0;
}

/** Nothing at all for a plain level-1 search (the output people and scripts know); else the level and the notices. */
function levelHeader(response: DialResponse, notices: readonly SaidNotice[]): StyledText {
  const lines = noticeLines(notices);
  if (response.level === 1 && lines.length === 0) return [];
  const asked = response.level === response.ranLevel ? "" : `; ${levelWords(response.level)} was asked`;
  return [styled("dim", `Searched at ${levelWords(response.ranLevel)}${asked}.`), "\n", ...lines.map((l) => `${l}\n`), "\n"];
}

function lexicalOf(results: DialResult[]): SearchResult[] {
  return results.flatMap((r) => (r.lexical ? [r.lexical] : []));
}

/** Levels 2–4: each note with the section that matched and how each lane (and the rerank) ranked it. */
export function dialResultText(query: string, response: DialResponse): StyledText {
  const { results } = response;
  if (results.length === 0) return [`No notes match "${queryShown(query)}".\n`];
  const parts: StyledText = [`${results.length} note${results.length === 1 ? "" : "s"} for "${queryShown(query)}":\n\n`];
  results.forEach((r, i) => {
    parts.push(`${i + 1}. `, styled("bold", visibleName(r.title)), ` — ${visibleName(r.path)} (fused score ${r.score.toFixed(4)})\n`);
    const s = r.section;
    if (s) {
      const where = s.unit === "section" ? s.headingPath.join(" › ") : s.unit === "title" ? "the title" : "the headings";
      if (where) parts.push(`   § ${where}${s.from === "section_vector" ? " (closest section vector)" : ""}\n`);
      // Already cut by the dial (the words' snippet rule): printed as level 1 prints a section, blocks on their own lines.
      if (s.snippet) parts.push("   ", ...highlighted(s.snippet, wordsHighlights(r)), "\n");
    }
    parts.push(styled("dim", `   why: ${laneWords(r)}`), "\n\n");
  });
  return parts;
}

/** The marks of the words the section matched, when the words found it: its snippet is then the lexical lane's best section's. */
function wordsHighlights(r: DialResult): [number, number][] {
  const best = r.lexical?.sections[0];
  // Offsets into that very snippet only: a section the vectors named has no marks.
  return r.section?.from === "lexical" && best && best.snippet === r.section.snippet ? best.highlights : [];
}

const LANE_NAMES = { lexical: "words", note_vector: "note vector", section_vector: "section vector" } as const;

function laneWords(r: DialResult): string {
  const lanes = r.explanation.lanes.map((l) => `${LANE_NAMES[l.lane]} #${l.rank}${l.lane === "lexical" ? "" : ` (cosine ${l.score.toFixed(2)})`}`);
  const rerank = r.explanation.rerank;
  if (rerank) lanes.push(`reranked ${rerank.before} → ${rerank.after} by ${rerank.model}`);
  return lanes.join(" · ");
}

/** What a person reads: every part is sanitised on the way out (a clipped page's escape codes must not drive the terminal). */
export function searchResultText(query: string, results: SearchResult[]): StyledText {
  if (results.length === 0) return [`No notes match "${queryShown(query)}".\n`];
  const parts: StyledText = [`${results.length} note${results.length === 1 ? "" : "s"} for "${queryShown(query)}":\n\n`];
  results.forEach((r, i) => {
    parts.push(`${i + 1}. `, styled("bold", visibleName(r.title)), ` — ${visibleName(r.path)} (${scoreWords(r)})\n`);
    for (const s of r.sections.slice(0, 2)) {
      if (s.heading) parts.push(`   § ${s.headingPath.join(" › ") || s.heading}\n`);
      parts.push("   ", ...highlighted(s.snippet, s.highlights), "\n");
    }
    const e = r.explanation;
    const fields = Object.entries(e.fields)
      .map(([f, ts]) => `${f}: ${ts.join(", ")}`)
      .join("; ");
    const meaning = e.vaultLanguage ? `close in this vault's own words (meaning rank ${e.vaultLanguage.rank})` : "";
    const named = e.parts.find((p) => p.name === NAMED_PART)?.detail ?? "";
    const why = [fields, named, meaning].filter(Boolean).join(" · ") || "tags";
    parts.push(styled("dim", `   why: ${why}${e.missingTerms.length ? ` · missing: ${e.missingTerms.join(", ")}` : ""}`), "\n\n");
  });
  return parts;
}

/**
 * The score the list is in the order of. Fused with the vault-language lane, that is the fused
 * score (four decimals: fused scores are small fractions), with the words' own rank and score
 * beside it, so a note above one with a higher words' score, or one only that lane found, says why.
 */
function scoreWords(r: SearchResult): string {
  const fusion = r.explanation.fusion;
  if (!fusion) return `score ${r.score.toFixed(2)}`;
  const words = fusion.wordsRank === null ? "not ranked by its words" : `words #${fusion.wordsRank}, score ${r.score.toFixed(2)}`;
  return `fused score ${fusion.score.toFixed(4)} · ${words}${fusion.keptFirst ? ", kept first" : ""}`;
}

/**
 * The query as it was read (its first 2,000 characters: a file piped in is not echoed whole), on
 * one line: a line break written in it cannot start a line that looks like a result.
 */
function queryShown(query: string): string {
  return visibleName(questionRead(query));
}

/** The snippet with its matched words as highlight parts («word» without colour). */
function highlighted(snippet: string, highlights: [number, number][]): StyledText {
  // A snippet keeps a line break where a block of the note ends (a table row, a paragraph, code):
  // its next line is indented as the first is, under the result it belongs to.
  const indented = (text: string) => text.replace(/\n/g, "\n   ");
  const parts: StyledText = [];
  let at = 0;
  for (const [start, end] of highlights) {
    if (start < at) continue;
    parts.push(indented(snippet.slice(at, start)), styled("highlight", indented(snippet.slice(start, end))));
    at = end;
  }
  parts.push(indented(snippet.slice(at)));
  return parts;
}
