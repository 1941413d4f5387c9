// Citation verification: an answer may cite only keys that were admitted to its prompt. A made-up
// key, an uncited answer when evidence existed, or a confident answer when none existed fails.
// Pure: the runner decides about repair attempts and how a failed answer is shown.
import type { Citation } from "../../evidence/research-pack";
import { citationKeys } from "../../notes/inert-answer";
import { straightApostrophes } from "../../text/apostrophes";

export type CitationErrorKind = "unknown_key" | "no_citations" | "answer_without_evidence";

export interface CitationError {
  kind: CitationErrorKind;
  /** The cited key, for `unknown_key`. */
  key?: string;
  /** The admitted key this one is a near miss of (a model often mangles a digit or two), when there is one. */
  suggestion?: string;
  message: string;
}

export type CitationWarningKind = "uncited_paragraph";

export interface CitationWarning {
  kind: CitationWarningKind;
  message: string;
}

export interface CitationCheck {
  passed: boolean;
  errors: CitationError[];
  warnings: CitationWarning[];
  /** Admitted keys the answer cites, each once, in order of first citation. */
  citations: Citation[];
}

export interface VerifyOptions {
  /** Whether any evidence (vault or outside) was admitted to the prompt. */
  evidenceExisted: boolean;
  /** The answer is known to be a "there is no evidence" answer (the runner wrote it itself). */
  claimedNoEvidence?: boolean;
  /**
   * The answer is the run's extractive brief: every quote carries its key, and its uncited
   * paragraphs are its own framing (what it is, the judge's reason, where the vault's evidence
   * ends), not claims. "4 paragraphs have no citation" under every brief told a reader otherwise.
   */
  extractive?: boolean;
}

/**
 * Unknown keys reported one by one (each with its nearest real key); the rest are counted in one
 * error. A broken or hostile server can send megabytes of made-up keys: naming each, with an edit
 * distance to every admitted key, froze the run for seconds and made a repair prompt of megabytes.
 */
export const MAX_UNKNOWN_KEYS_NAMED = 10;

/** Any bracket: its inside is a citation when every part is an attempt at a key, well-formed or not (`citationKeys`), so mangled keys are caught. */
const BRACKET = /\[([^[\]\n]{1,400})\]/g;

/**
 * A source cited by number, the way papers do (`[S9]`, `[Source 2]`, `[ref 3]`): a model that
 * numbered the evidence itself. It names no key, so nothing checks it, yet a reader takes it for a
 * citation. Not after a word or a bracket (`rows[S1]` is code), not a bare `[1]` (notes quote footnotes),
 * and not `[src:12]`, a mangled key reported as one.
 */
export const NUMBERED_SOURCE = /(?<![\w\])])\[((?:(?:s|source|ref)\s*[-#:]?|(?:src|ext)\s*[-#]?)\s*\d{1,3})\]/gi;

/** Sources cited by number, as written, each once. */
export function numberedSources(answer: string): string[] {
  return [...new Set(Array.from(answer.matchAll(NUMBERED_SOURCE), (m) => m[1]))];
}

/**
 * Keys cited in bracketed form — `[src:0a1b2c3d4e]`, `[ext:brave:0a1b2c3d4e]`, or several in one
 * bracket separated by `;` or `,` — each once, in order of first appearance. Malformed attempts
 * (`[src:12]`) are returned too, lower-cased, so verification can report them.
 */
export function extractCitations(answer: string): string[] {
  const keys: string[] = [];
  for (const match of answer.matchAll(BRACKET)) {
    // `[src:…](url)` is still a citation (the panel shows it as one), whatever link the model put after it.
    keys.push(...(citationKeys(match[1]) ?? []));
  }
  return [...new Set(keys)];
}

export function verifyCitations(
  answer: string,
  admittedKeys: ReadonlyMap<string, Citation>,
  opts: VerifyOptions,
): CitationCheck {
  const errors: CitationError[] = [];
  const warnings: CitationWarning[] = [];
  const citations: Citation[] = [];
  const cited = extractCitations(answer);

  let unnamed = 0;
  for (const key of cited) {
    const citation = admittedKeys.get(key);
    if (citation) {
      citations.push(citation);
      continue;
    }
    if (errors.length >= MAX_UNKNOWN_KEYS_NAMED) {
      unnamed++;
      continue;
    }
    const suggestion = nearestKey(key, admittedKeys.keys());
    errors.push({
      kind: "unknown_key",
      key,
      ...(suggestion ? { suggestion } : {}),
      message: suggestion
        ? `The answer cites [${key}], which was not among the evidence it was given; the nearest real key is [${suggestion}].`
        : `The answer cites [${key}], which was not among the evidence it was given.`,
    });
  }
  for (const numbered of numberedSources(answer)) {
    if (errors.length >= MAX_UNKNOWN_KEYS_NAMED) {
      unnamed++;
      continue;
    }
    errors.push({ kind: "unknown_key", key: numbered, message: `The answer cites [${numbered}], which is not a key of the evidence it was given; cite each source by its bracketed key.` });
  }
  if (unnamed > 0) {
    errors.push({ kind: "unknown_key", message: `The answer cites ${unnamed} more ${unnamed === 1 ? "key" : "keys"} that ${unnamed === 1 ? "was" : "were"} not among the evidence it was given.` });
  }

  if (opts.evidenceExisted) {
    if (cited.length === 0) {
      errors.push({
        kind: "no_citations",
        message: "The answer cites no evidence although evidence was found; every claim needs a bracketed key.",
      });
    } else {
      const uncited = opts.extractive ? 0 : uncitedParagraphs(answer);
      if (uncited > 0) {
        warnings.push({
          kind: "uncited_paragraph",
          message: `${uncited} ${uncited === 1 ? "paragraph has" : "paragraphs have"} no citation.`,
        });
      }
    }
  } else if (!(opts.claimedNoEvidence ?? false) && !saysNoEvidence(answer)) {
    errors.push({
      kind: "answer_without_evidence",
      message: "The answer reads as a normal answer, but no evidence was found; it should say plainly that there is none.",
    });
  }

  return { passed: errors.length === 0, errors, warnings, citations };
}

/**
 * Whether the answer opens by saying the vault (or the search) has nothing on the question. Only
 * the opening counts: a sentence of regret followed by an uncited essay is still an essay.
 */
export function saysNoEvidence(answer: string): boolean {
  const opening = straightApostrophes(answer.replace(/[*_`#>]/g, "").trim().slice(0, 300).toLowerCase());
  return [
    /\bno (?:relevant |usable |matching )?(?:evidence|notes?|sources?|information|results?)\b/,
    /\b(?:vault|notes?|evidence|search) (?:does not|doesn't|do not|don't|did not|didn't) (?:contain|mention|cover|say|answer|include|have)\b/,
    /\b(?:could not|couldn't|cannot|can't|did not|didn't) find (?:any(?:thing)?|evidence|notes?)\b/,
    /\bnothing (?:in|about|on) (?:the|your|my)\b/,
    /\bnot (?:covered|mentioned|answered) (?:in|by) (?:the|your|my)\b/,
  ].some((pattern) => pattern.test(opening));
}

function uncitedParagraphs(answer: string): number {
  return answer
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    // Headings, rules and one-word lines are not claims.
    .filter((paragraph) => paragraph.length > 40 && !/^#{1,6}\s/.test(paragraph) && !/^[-*_]{3,}$/.test(paragraph))
    .filter((paragraph) => extractCitations(paragraph).length === 0).length;
}

/**
 * Edits at most between a cited key and the admitted one it is taken for: a digit or three mangled.
 * Past that, the "nearest" key is any key, and the repair request offering it had a model cite a
 * note that says nothing of its claim, which then verified.
 */
const MAX_SUGGESTION_EDITS = 3;

function nearestKey(key: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = MAX_SUGGESTION_EDITS + 1;
  for (const candidate of candidates) {
    const distance = editDistance(key, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance with one rolling row. */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}
