// The embedding job's progress in words: the CLI's progress line on stderr and the plugin's
// status line say the same thing. Numbers with thousands separators; the ETA rounded to what a
// person can plan with. Vectors that could not be saved are never called kept.
import type { EmbeddingProgress } from "./embedding-job";

export function embeddingProgressWords(p: EmbeddingProgress): string {
  const done = count(p.notesDone + p.notesUnreadable + (p.refused?.notes ?? 0));
  const total = count(p.notesTotal);
  switch (p.state) {
    case "idle":
      return "Embedding has not started.";
    case "running": {
      // Carried before any note is embedded; counted as "0 of" a total that fell, it read as stuck.
      if ((p.movesLeft ?? 0) > 0) return `Moving the vectors of renamed notes: ${count(p.movesLeft ?? 0)} to go`;
      if (p.checksLeft > 0) return `Checking notes after an update: ${count(p.checksLeft)} to go`;
      const rate = p.notesPerSecond === null ? "" : ` · ${rateWords(p.notesPerSecond)}`;
      const eta = p.etaMs === null ? "" : ` · ${etaWords(p.etaMs)}`;
      return `Embedding notes: ${done} of ${total}${rate}${eta}`;
    }
    case "paused":
      if ((p.movesLeft ?? 0) > 0) return `Paused while moving the vectors of renamed notes: ${count(p.movesLeft ?? 0)} to go.`;
      return `Embedding paused at ${done} of ${total} notes.`;
    case "done": {
      const moved = (p.notesMoved ?? 0) > 0 ? ` (${count(p.notesMoved ?? 0)} renamed, their vectors moved with them)` : "";
      const kept = p.notesUnchanged > 0 ? `; ${count(p.notesUnchanged)} already up to date${moved}` : "";
      const rechecked = p.notesRechecked > 0 ? `; ${count(p.notesRechecked)} read again because this version cuts notes differently` : "";
      const unreadable = p.notesUnreadable > 0 ? `; ${count(p.notesUnreadable)} could not be read and will be tried again` : "";
      const refused = p.refused ? `; ${count(p.refused.notes)} the embedding server could not embed (first ${p.refused.first}: ${p.refused.message}) and will be tried again` : "";
      const notSaved = p.saveProblem === undefined ? "" : ", but their vectors could not be saved";
      return `Embedded ${count(p.notesDone)} ${p.notesDone === 1 ? "note" : "notes"}${kept}${rechecked}${unreadable}${refused}${notSaved}.`;
    }
    case "cancelled":
      return `Embedding stopped at ${done} of ${total} notes; ${p.saveProblem === undefined ? "what was embedded is kept" : "the vectors could not be saved"}.`;
    case "failed":
      return `Embedding stopped at ${done} of ${total} notes: ${p.error?.message ?? "unknown error"}`;
  }
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function rateWords(perSecond: number): string {
  return perSecond >= 10 ? `${Math.round(perSecond)} notes/s` : `${perSecond.toFixed(1)} notes/s`;
}

function etaWords(ms: number): string {
  return ms <= 0 ? "finishing" : `${durationWords(ms)} left`;
}

/** From a day on, a stretch of time is said as "a day or more": text/retry-after.ts believes no wait longer
 * (a longer one is a server's mistake), and an ETA that far off is no plan in hours. */
const DAY_MS = 86_400_000;

/**
 * A stretch of time as a person plans with it: "under a minute", "about 7 min", "about 2 h 5 min", "a day
 * or more". Infinity or NaN (400 nines in a Retry-After once read "about Infinity h NaN min") is the last.
 */
export function durationWords(ms: number): string {
  if (!(ms < DAY_MS)) return "a day or more";
  const minutes = Math.round(ms / 60_000);
  if (ms < 60_000) return "under a minute";
  if (minutes < 60) return `about ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? `about ${hours} h` : `about ${hours} h ${rest} min`;
}
