// The answer as the user takes it away (copy, insert at cursor): plain markdown in which each
// citation is a link — a wikilink for a note, a markdown link for a web page — followed by the
// sources it cites, outside-vault ones with their label. No trace internals, no source keys, and
// nothing the model wrote can become a link or an embed in the note it is pasted into. An answer
// citing web answers that were replayed from recordings says so, in the notes' words: pasted
// elsewhere, it is no longer beside the trace note that marks the run as a sample.
import type { ResearchTrace } from "../evidence/trace-types";
import type { ResearchResult } from "../research/types";
import { webLink } from "../notes/note-links";
import { recordingsIn, replayedWebFolder, SAMPLE_RESPONSES_TITLE } from "../notes/recorded-sample";
import { CITATION_BRACKET, citationKeys, inertAnswerMarkdown } from "../notes/inert-answer";
import { citationTargets, type CitationTarget } from "./answer-render";

// Characters that end or change the meaning of a wikilink's heading part.
const UNLINKABLE_HEADING = /[#|^[\]]/;

/** What the copy reads of a run; a result without its trace (a test's) is copied as a live run's. */
export type CopiedRun = Pick<ResearchResult, "answer" | "pack" | "citations"> & { trace?: Pick<ResearchTrace, "replayed_from" | "queries_sent"> };

export function answerAsMarkdown(result: CopiedRun): string {
  const answer = result.answer;
  if (!answer) return "";
  const targets = citationTargets(result.pack, result.citations);
  const cited: CitationTarget[] = [];
  // Links, embeds and HTML the model wrote (perhaps copied from a web page) stay inert in the note too.
  const body = inertAnswerMarkdown(answer.text).replace(CITATION_BRACKET, (whole, inside: string) => {
    const keys = citationKeys(inside);
    if (!keys) return whole;
    const links = keys.map((key) => {
      const target = targets.get(key);
      if (!target) return `\\[${key}\\]`;
      if (!cited.includes(target)) cited.push(target);
      return linkTo(target);
    });
    return `(${links.join("; ")})`;
  });

  const notes = cited.filter((t) => t.origin === "vault");
  const outside = cited.filter((t) => t.origin === "outside_vault");
  const parts: string[] = [];
  if (!answer.verified) parts.push("*Unverified answer: its citations did not check out.*", "");
  const replayed = result.trace ? replayedWebFolder(result.trace) : null;
  if (replayed !== null && outside.length > 0) parts.push(sampleSourcesLine(replayed), "");
  parts.push(body.trim());
  if (notes.length > 0 || outside.length > 0) {
    parts.push("", "Sources:");
    for (const t of notes) parts.push(`- ${linkTo(t)}`);
    for (const t of outside) if (t.origin === "outside_vault") parts.push(`- ${linkTo(t)} — ${t.label}`);
  }
  return parts.join("\n") + "\n";
}

/** One line, read first: the outside-vault sources the answer cites are the notes' recorded samples. */
function sampleSourcesLine(folder: string): string {
  return `> ${SAMPLE_RESPONSES_TITLE}: the outside-vault sources below were replayed from ${recordingsIn(folder)}.`;
}

function linkTo(target: CitationTarget): string {
  if (target.origin === "vault") {
    const note = target.path.replace(/\.md$/i, "");
    const heading = target.heading && !UNLINKABLE_HEADING.test(target.heading) ? `#${target.heading}` : "";
    return `[[${note}${heading}|${target.title.replace(/[|\]]/g, " ")}]]`;
  }
  return webLink(target.title, target.url);
}
