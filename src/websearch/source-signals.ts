// Signals are kept as data (for --json, the trace and ranking) and shown in words, the same words
// everywhere: "1,714 points · 469 comments", "12,345 stars · TypeScript", "accepted answer".
import type { SourceSignal } from "./types";

function count(n: number, one: string, many: string): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

/** At most three names, then "et al." — enough to recognise a paper without a wall of names. */
function authorList(names: string[]): string {
  if (names.length <= 3) return names.join(", ");
  return `${names.slice(0, 3).join(", ")} et al.`;
}

/** One signal in words, or "" for one that says nothing worth reading. */
export function signalInWords(signal: SourceSignal): string {
  switch (signal.kind) {
    case "points":
      return count(signal.value, "point", "points");
    case "comments":
      return count(signal.value, "comment", "comments");
    case "stars":
      return count(signal.value, "star", "stars");
    case "language":
      return signal.value;
    case "last_push":
      return `last push ${signal.value.slice(0, 10)}`;
    case "archived":
      return "archived";
    case "votes":
      return `score ${signal.value.toLocaleString("en-US")}`;
    case "answers":
      return count(signal.value, "answer", "answers");
    case "accepted_answer":
      return signal.value ? "accepted answer" : "no accepted answer";
    case "tags":
      return signal.value.length > 0 ? `tags: ${signal.value.slice(0, 5).join(", ")}` : "";
    case "authors":
      return signal.value.length > 0 ? `by ${authorList(signal.value)}` : "";
    case "category":
      return signal.value;
    case "journal":
      return signal.value;
    case "engines":
      return signal.value.length > 0 ? `via ${signal.value.join(", ")}` : "";
  }
}

/** All of a result's signals in words, joined by " · "; "" when there are none. */
export function signalsInWords(signals: readonly SourceSignal[] | undefined): string {
  return (signals ?? []).map(signalInWords).filter((w) => w !== "").join(" · ");
}
