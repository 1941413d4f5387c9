// Brave-style freshness (`pd`, `pw`, `pm`, `py`, `YYYY-MM-DDtoYYYY-MM-DD`) as a window of time,
// for sources that filter on dates themselves (Hacker News, arXiv, PubMed, SearXNG, Tavily).
import type { Freshness } from "../settings";

const dayMs = 86_400_000;

/** Days back for each relative freshness; a month is 31 days so "past month" never misses one. */
export const freshnessDays: Record<"pd" | "pw" | "pm" | "py", number> = { pd: 1, pw: 7, pm: 31, py: 365 };

export interface FreshnessWindow {
  startMs: number;
  /** Only for explicit ranges; relative windows run to now. */
  endMs?: number;
}

/** The window, or undefined for `any`. */
export function freshnessWindow(freshness: Freshness, now: number): FreshnessWindow | undefined {
  if (freshness === "any") return undefined;
  if (freshness === "pd" || freshness === "pw" || freshness === "pm" || freshness === "py") {
    return { startMs: now - freshnessDays[freshness] * dayMs };
  }
  const [start, end] = freshness.split("to");
  return { startMs: Date.parse(`${start}T00:00:00.000Z`), endMs: Date.parse(`${end}T23:59:59.999Z`) };
}
