// `vault-research compare "<query>"`: one query at all four levels of the search dial, side by
// side — a table of each note's rank per level with its move from the level before (↑2, ↓1, new),
// and for a level that could not run, that it did not (its column says "not run", never a lower
// level's ranks as its own), so a user sees what each level buys on their vault.
// Each level's search goes to the query log, as any search does.
import { compareLevels, ranAsAsked, type ComparedLevel, type ComparisonRow, type LevelComparison, type RankMove } from "../index/dial/level-comparison";
import { DIAL_LEVEL_NAMES } from "../index/dial/dial-types";
import type { Http } from "../ports";
import { flag, has, intFlag, UsageError, type ParsedArgs } from "./args";
import type { CommandIo } from "./cli-io";
import { levelComparisonJson } from "./json/level-comparison-json";
import { openVault, readSettings } from "./open-vault";
import { readQuestion } from "./question-input";
import { levelWords, openDial, readEmbedConfig, readModelConfig, shownNotices, type SaidNotice } from "./search-dial";
import { terminalJson, visibleName } from "./terminal-text";
import { styled, type StyledText } from "./terminal-style";

/** `http`: the embedding and chat clients' (tests bring a recording one). */
export async function compareCommand(args: ParsedArgs, io: CommandIo, http?: Http): Promise<number> {
  const query = await readQuestion(args, io);
  if (!query) throw new UsageError('compare needs a query, e.g. vault-research compare "daily notes" --vault DIR');
  const limit = intFlag(args, "limit", 1, 50) ?? 10;
  const settings = readSettings(args, io);
  const choice = { level: 4 as const, embed: readEmbedConfig(args, settings), model: readModelConfig(args, settings) };
  const opened = await openVault(args, io, settings);
  // Level 4 is compared only when it can run: the settings' chat model without its key leaves it to level 3, saying why.
  const dial = await openDial(opened, choice, { surface: "compare", log: true, http, env: io.env, clock: io.clock, rerankOptional: flag(args, "model") === undefined });
  const comparison = await compareLevels(dial.search, { query, limit });
  // Its four searches go to the query log: a log that could not be written is said, as search says it.
  if (dial.queryLog.problem) io.err(`warning: ${dial.queryLog.problem}\n`);
  // What loading the vectors found (damaged, unreadable, another model's) is said by each level that reads them, as search says it,
  // and why the settings' chat model could not rerank.
  const shown = { ...comparison, levels: comparison.levels.map((l) => ({ ...l, notices: l.level === 1 ? l.notices : shownNotices(l.notices, dial) })) };
  if (has(args, "json")) {
    const json = levelComparisonJson(comparison, limit, opened.index.paths());
    io.out(`${terminalJson({ ...json, levels: json.levels.map((l, i) => ({ ...l, notices: shown.levels[i].notices.map((n) => ({ kind: n.kind, message: n.message })) })) })}\n`);
  } else io.outStyled(comparisonText(shown));
  return 0;
}

/** A comparison as it is shown: each level's notices, the dial's and what loading the vectors found. */
export type ShownComparison = Omit<LevelComparison, "levels"> & { levels: (Omit<ComparedLevel, "notices"> & { notices: readonly SaidNotice[] })[] };

const RANK_WIDTH = 9;

/** What a person reads: whether each level ran (and what ran instead), then one line per note with its ranks and moves. */
export function comparisonText(comparison: ShownComparison): StyledText {
  // As search shows it: a line break in the query, written visibly, cannot start a line of its own.
  const query = visibleName(comparison.query);
  const parts: StyledText = [`"${query}" at the four levels of the search dial:\n`];
  for (const l of comparison.levels) {
    const results = ` · ${l.keys.length} result${l.keys.length === 1 ? "" : "s"}`;
    // A level that fell back gave a lower level's results: counted there, not here.
    const ran = ranAsAsked(l) ? ["ran", results] : [styled("fail", `did not run; ${levelWords(l.ranLevel)} ran instead`)];
    parts.push(`  L${l.level} ${DIAL_LEVEL_NAMES[l.level].toLowerCase()}: `, ...ran, ` · ${Math.round(l.latencyMs)} ms\n`);
    for (const n of l.notices) parts.push(styled("dim", `     ${n.message}`), "\n");
  }
  if (comparison.rows.length === 0) return [...parts, `\nNo notes match "${query}" at any level.\n`];
  parts.push("\n", styled("bold", `  ${["L1", "L2", "L3", "L4"].map((h) => h.padEnd(RANK_WIDTH)).join("")}note`), "\n");
  for (const row of comparison.rows) parts.push(...rowText(row, comparison.levels));
  const notRun = comparison.levels.some((l) => !ranAsAsked(l)) ? " not run: the level could not run (the lines above say why), and moves are from the last level before it that ran;" : "";
  parts.push(styled("dim", `\n  ↑n moved up n places from the level before, ↓n down; new: not shown at the level before; gone: shown at the level before, not at this one;${notRun} -: not shown.`), "\n");
  return parts;
}

function rowText(row: ComparisonRow, levels: ShownComparison["levels"]): StyledText {
  const parts: StyledText = ["  "];
  row.ranks.forEach((rank, i) => {
    if (levels[i] && !ranAsAsked(levels[i])) {
      parts.push(styled("dim", "not run".padEnd(RANK_WIDTH)));
      return;
    }
    const cell = `${rank ?? "-"}${i === 0 ? "" : moveMark(row.moves[i])}`;
    const move = row.moves[i];
    const style = i > 0 && move.kind === "up" ? "ok" : i > 0 && (move.kind === "down" || move.kind === "gone") ? "fail" : null;
    parts.push(style ? styled(style, cell.padEnd(RANK_WIDTH)) : cell.padEnd(RANK_WIDTH));
  });
  parts.push(`${visibleName(row.title)} — ${visibleName(row.key)}\n`);
  return parts;
}

function moveMark(move: RankMove): string {
  switch (move.kind) {
    case "up":
      return ` ↑${move.by}`;
    case "down":
      return ` ↓${move.by}`;
    case "new":
      return " new";
    case "gone":
      return " gone";
    case "same":
    case "absent":
      return "";
  }
}
