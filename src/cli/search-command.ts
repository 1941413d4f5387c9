// `vault-research search "<query>"`: the vault's best notes for a query, as text a person reads
// (title, path, score, the matched sections with the matched words highlighted, why it matched)
// or as one `vault_search.v1` object.
import type { SearchResult } from "../index/types";
import { has, intFlag, UsageError, type ParsedArgs } from "./args";
import type { CommandIo } from "./cli-io";
import { vaultSearchJson } from "./json/vault-search-json";
import { openVault } from "./open-vault";
import { readQuestion } from "./question-input";
import { terminalJson } from "./terminal-text";
import { styled, type StyledText } from "./terminal-style";

export async function searchCommand(args: ParsedArgs, io: CommandIo): Promise<number> {
  const query = await readQuestion(args, io);
  if (!query) throw new UsageError('search needs a query, e.g. vault-research search "daily notes" --vault DIR');
  const limit = intFlag(args, "limit", 1, 200) ?? 10;
  const opened = await openVault(args, io);
  const results = await opened.index.search(query, opened.store, { limit });
  if (has(args, "json")) io.out(`${terminalJson(vaultSearchJson({ query, limit }, results))}\n`);
  else io.outStyled(searchResultText(query, results));
  return 0;
}

/** What a person reads: every part is sanitised on the way out (a clipped page's escape codes must not drive the terminal). */
export function searchResultText(query: string, results: SearchResult[]): StyledText {
  if (results.length === 0) return [`No notes match "${query}".\n`];
  const parts: StyledText = [`${results.length} note${results.length === 1 ? "" : "s"} for "${query}":\n\n`];
  results.forEach((r, i) => {
    parts.push(`${i + 1}. `, styled("bold", r.title), ` — ${r.path} (score ${r.score.toFixed(2)})\n`);
    for (const s of r.sections.slice(0, 2)) {
      if (s.heading) parts.push(`   § ${s.headingPath.join(" › ") || s.heading}\n`);
      parts.push("   ", ...highlighted(s.snippet, s.highlights), "\n");
    }
    const e = r.explanation;
    const fields = Object.entries(e.fields)
      .map(([f, ts]) => `${f}: ${ts.join(", ")}`)
      .join("; ");
    parts.push(styled("dim", `   why: ${fields || "tags"}${e.missingTerms.length ? ` · missing: ${e.missingTerms.join(", ")}` : ""}`), "\n\n");
  });
  return parts;
}

/** The snippet with its matched words as highlight parts («word» without colour). */
function highlighted(snippet: string, highlights: [number, number][]): StyledText {
  const parts: StyledText = [];
  let at = 0;
  for (const [start, end] of highlights) {
    if (start < at) continue;
    parts.push(snippet.slice(at, start), styled("highlight", snippet.slice(start, end)));
    at = end;
  }
  parts.push(snippet.slice(at));
  return parts;
}
