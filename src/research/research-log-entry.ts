// A research run's one line in the query log, the same from the CLI and the panel: the question,
// the dial's level asked and run, the vault notes its pack cites (in order), and how long its
// vault search took. The run's own searches are not logged one by one. A run the user stopped is
// not logged at all: it may have stopped before the vault was searched, and the log is replayed at
// every level as if each line were a search that ran (eval:search, the dial's comparison).
import type { DialLevel } from "../index/dial/dial-types";
import type { SearchToLog } from "../index/query-log/query-log";
import type { ResearchResult } from "./types";

export function researchLogEntry(question: string, levels: { level: DialLevel; ranLevel: DialLevel }, result: ResearchResult, surface: string): SearchToLog | null {
  if (result.stop_reason === "cancelled") return null;
  const ms = result.trace.events.find((e) => e.type === "local_retrieval")?.data?.ms;
  return {
    query: question,
    level: levels.level,
    ranLevel: levels.ranLevel,
    filters: { folders: [], tags: [] },
    results: result.pack.evidence.map((row) => row.note_path),
    latencyMs: typeof ms === "number" ? ms : 0,
    surface,
  };
}
