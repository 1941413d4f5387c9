// The planner: turns a question into what retrieval, the judge and the web providers need.
// Deterministic and model-free, so the same question always plans the same way (and is testable).
// Provider queries are built from the question alone: note text must never leave the device.
import { systemClock, type Clock } from "../../ports";
import { STOP_WORDS } from "../../index/stopwords";
import type { QueryPlan } from "../../evidence/research-pack";
import { straightApostrophes } from "../../text/apostrophes";
import { questionRead } from "../../text/cut-text";
import { wordSet } from "../../text/word-set";
import { isAbbreviation } from "../../text/abbreviations";
import { TYPED_TAG } from "../../text/typed-tags";
import { questionSides } from "./question-sides";
import { SHAPE_WORDS } from "./shape-words";

export interface PlanOptions {
  /** Earlier questions of this conversation, oldest first. They may lend context terms, never evidence. */
  history?: readonly string[];
  /** Decides which years count as "now" for the freshness flag (default: the system clock). */
  clock?: Clock;
  /** Overrides the clock's year (handy in evals that pin a date). */
  currentYear?: number;
}

/** Words that ask about the present. Matched as whole words/phrases on the normalised question. */
const FRESHNESS_CUES = [
  "latest",
  "today",
  "current",
  "currently",
  "recent",
  "recently",
  "what changed",
  "what has changed",
  "what's new",
  "what is new",
  "as of now",
  "right now",
  "nowadays",
  "these days",
  "this year",
  "this month",
  "this week",
  "newest",
  "up to date",
  "up-to-date",
  "yesterday",
  "still supported",
] as const;

/**
 * Words that are not stop words but say nothing about the topic, so a note need not contain them.
 * Freshness cue words are added below: "latest" is a question about time, not a topic.
 */
const GENERIC_WORDS = wordSet(
  `best good better great new old main different difference differences compare comparison
   vs versus example examples kind kinds type types work works working way best-practice
   practice practices idea ideas question questions answer answers info information details
   overview summary summarize summarise describe list mean means meaning find look looking
   find say says said think thought recommend recommended recommendation should possible
   there's whats now much many often another like already quickly exactly correctly properly
   automatically really actually simply easily usually whose yet give whole keep makes made one
   someone anyone somebody without instead across inside within year years sort go goes`,
);

/**
 * The words a question that relates two things asks it with ("relate" in "how do libraries relate to
 * repositories", "together" in "how do X and Y work together"): the shape words (shape-words.ts) that
 * are neither side's (question-sides.ts). A shape word in a question that relates nothing, or within
 * a side, may be what is asked about ("what does a relation object hold", "squash commits together"):
 * it stays required, and the judge weighs it light.
 */
function shapeWordsOf(normalized: string): Set<string> {
  const sides = questionSides(normalized);
  if (sides === null) return new Set();
  const sideWords = new Set(sides.flatMap((side) => contentWords(side)));
  return new Set(contentWords(normalized).filter((word) => SHAPE_WORDS.has(word) && !sideWords.has(word)));
}

/** Ways of saying "in my notes" that are about where to look, not what to look for. */
const META_PHRASES = [
  // "from the note" is one note the question is about ("delete a task from the note"), not where to look.
  /\b(?!from the note\b)(?:according to|based on|from|in|within|inside|across) (?:my|the|our) (?:notes?|vault|knowledge base|pkm)\b/gi,
  /\bwhat do(?:es)? (?:my|the|our) (?:notes?|vault) say (?:about|on)\b/gi,
  /\b(?:my|the|our) (?:notes?|vault) say(?:s)? (?:about|on)?\b/gi,
  /\bdo i have (?:any )?notes? (?:about|on)\b/gi,
  /\bsearch (?:my|the) (?:notes?|vault) for\b/gi,
];

/** Pronouns and openers that mark a question as leaning on the one before it. */
const FOLLOW_UP_MARKERS = /^(?:and|also|what about|how about|and what about|then|so)\b|\b(?:it|its|it's|they|them|their|that|those|this|these|he|she|him|her)\b/;

// Marks (\p{M}) belong to their word: Hindi's vowel signs and Thai's tone marks cut "पनीर" into "पन", "र".
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}'’_.+\-/]*[\p{L}\p{M}\p{N}+]|[\p{L}\p{N}]/gu;
const PHRASE = /["“”„]([^"“”„]{1,200})["“”„]/g;

export function planQuestion(asked: string, options: PlanOptions = {}): QueryPlan {
  const question = questionRead(asked);
  const currentYear = options.currentYear ?? new Date((options.clock ?? systemClock).now()).getUTCFullYear();
  const normalized = normalize(question);

  // Tags as the index's search reads them (text/typed-tags.ts): "#पनीर" keeps its marks, "issue #123" is no tag.
  const tags = unique([...normalized.matchAll(TYPED_TAG)].map((m) => m[2].replace(/\/+$/, "")).filter(Boolean));
  // A quoted run of no words ("—") is no phrase: nothing can be looked for in it.
  const phrases = unique([...normalized.matchAll(PHRASE)].map((m) => m[1].trim()).filter((p) => /[\p{L}\p{N}]/u.test(p)));
  const freshness = freshnessOf(normalized, currentYear);

  const withoutMeta = stripMeta(normalized.replace(TYPED_TAG, " "));
  const terms = contentWords(withoutMeta);
  const tagWords = new Set(tags.flatMap((tag) => tag.split("/")));
  const cueWords = new Set(freshness.cues.flatMap((cue) => cue.split(/\s+/)));
  const phraseWords = new Set(phrases.flatMap((phrase) => contentWords(phrase)));
  const shapeWords = shapeWordsOf(normalized);
  const required = terms.filter(
    (term) =>
      phraseWords.has(term) ||
      (!GENERIC_WORDS.has(term) && !shapeWords.has(term) && !cueWords.has(term) && !tagWords.has(term) && !isYear(term) && term.length > 1),
  );

  const contextTerms = contextTermsFrom(options.history ?? [], normalized, terms);

  return {
    question,
    normalized,
    terms: unique([...terms, ...tags.flatMap((tag) => tag.split("/"))]),
    required_terms: required,
    context_terms: contextTerms,
    tags,
    phrases,
    freshness,
    provider_queries: providerQueries(question, required, phrases, freshness.flagged, currentYear),
  };
}

/** The plan's Unicode form (NFKC) and apostrophe (’ and ‘ read as '). */
function plainForm(text: string): string {
  return straightApostrophes(text.normalize("NFKC"));
}

function normalize(text: string): string {
  return plainForm(text).toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * The question as the index is asked it: as written, in its case and with its stop words (the index
 * drops those itself, but reads names in the whole question: "Out of Control", "siteUrl"), in the
 * plan's Unicode form and apostrophe, without the ways of saying "in my notes".
 */
export function questionForIndex(question: string): string {
  return stripMeta(plainForm(question)).replace(/\s+/g, " ").trim();
}

function stripMeta(text: string): string {
  let out = text;
  for (const pattern of META_PHRASES) out = out.replace(pattern, " ");
  return out;
}

/** Words without stop words, trailing dots or possessives, each once, in question order. */
function contentWords(text: string): string[] {
  const words = (text.match(WORD) ?? []).map((word) => word.replace(/'s$/, "").replace(/\.+$/, ""));
  return unique(words.filter((word) => word !== "" && !STOP_WORDS.has(word)));
}

/**
 * The question's content terms that it writes as names: a capital that is not just the start of a
 * sentence, line or list item ("sync with Microsoft To Do", "foam and PDF files"), or one inside
 * the word ("SilverBullet", "macOS"). A note that never says the name is about something else,
 * however many other words it shares. Nothing when three or more of the other content words are
 * written and 80% of them are capitalised (Title Case or shouting says nothing about names); never
 * a one-letter word ("I", "H") or a stop word. A dot after an abbreviation ("vs.", "e.g.") ends no
 * sentence.
 */
export function namedTerms(plan: Pick<QueryPlan, "question" | "required_terms">): string[] {
  const question = plan.question.normalize("NFKC");
  const words: { term: string; startsSentence: boolean; capital: boolean; inner: boolean }[] = [];
  let end = 0;
  let previous = "";
  for (const m of question.matchAll(WORD)) {
    const gap = question.slice(end, m.index);
    const stop = /[.!?:;]/.exec(gap);
    const startsSentence = end === 0 || gap.includes("\n") || (stop !== null && !(stop[0] === "." && isAbbreviation(previous)));
    end = m.index + m[0].length;
    previous = m[0];
    const text = m[0].replace(/['’]s$/i, "").replace(/\.+$/, "");
    const term = normalize(text);
    if (/\p{L}/u.test(text) && term.length > 1) words.push({ term, startsSentence, capital: /^\p{Lu}/u.test(text), inner: /\p{Lu}/u.test(text.slice(1)) });
  }
  // German gives every noun a capital, so there a capital says nothing about names.
  if (words.filter((w) => GERMAN_WORDS.has(w.term)).length >= 2) return [];
  const content = words.filter((w) => !w.startsSentence && !STOP_WORDS.has(w.term));
  if (content.length >= 3 && content.filter((w) => w.capital).length >= 0.8 * content.length) return [];
  const required = new Set(plan.required_terms);
  return unique(words.filter((w) => (w.inner || (w.capital && !w.startsSentence)) && required.has(w.term)).map((w) => w.term));
}

/** Common German words no English question uses (two of them make a question German). */
const GERMAN_WORDS = wordSet(
  `ich und der das mit für wie kann nicht ist ein eine einen einem dem den auf zu von im werden wird meine
   meinen mein meiner sich oder aber auch wo wann warum welche welcher welches gibt es mich mir
   meinem kein keine habe haben bei nach über unter zwischen`,
);

/**
 * Things in the user's own tools that "current", "today" or "this week" often qualify: "my current
 * branch", "today's daily note", "tasks due this week" ask about the workspace, not the world.
 */
const WORKSPACE_OBJECTS = wordSet(
  `branch branches page pages note notes file files folder folders directory directories line lines cursor
   selection tab tabs window windows view pane document documents vault workspace buffer project
   user shell session process directory's daily journal task tasks todo todos date time timestamp
   block blocks heading headings entry entries item items list query graph theme`,
);
/** Words before a date cue that make it a scheduling filter ("due today", "scheduled this week"). */
const SCHEDULING_WORDS = new Set(["due", "scheduled", "done", "completed", "created", "modified", "starting", "until", "before", "after", "for", "on"]);

function freshnessOf(normalized: string, currentYear: number): QueryPlan["freshness"] {
  const cues: string[] = [];
  for (const cue of FRESHNESS_CUES) {
    const pattern = new RegExp(`(?:^|[^\\p{L}\\p{N}])${escapeRegExp(cue)}(?=$|[^\\p{L}\\p{N}])`, "gu");
    for (const match of normalized.matchAll(pattern)) {
      const at = (match.index ?? 0) + match[0].length - cue.length;
      if (!aboutTheWorkspace(normalized, at, cue)) {
        cues.push(cue);
        break;
      }
    }
  }
  for (const match of normalized.matchAll(/\b(19|20)\d{2}\b/g)) {
    if (Number(match[0]) >= currentYear) cues.push(match[0]);
  }
  return { flagged: cues.length > 0, cues: unique(cues) };
}

/** "current branch", "today's daily note", "due this week": the cue qualifies something of the user's. */
function aboutTheWorkspace(text: string, at: number, cue: string): boolean {
  const before = text.slice(0, at).match(/([\p{L}]+)[^\p{L}]*$/u)?.[1];
  const after = text.slice(at + cue.length).match(/^(?:'s)?[^\p{L}]*([\p{L}']+)(?:[^\p{L}]+([\p{L}']+))?/u);
  const next = after?.[1]?.replace(/'s$/, "");
  const nextButOne = after?.[2]?.replace(/'s$/, "");
  if (before && SCHEDULING_WORDS.has(before) && /^(today|this week|this month|yesterday|this year)$/.test(cue)) return true;
  if (!/^(current|today|this week|this month|recent)$/.test(cue)) return false;
  return (next !== undefined && WORKSPACE_OBJECTS.has(next)) || (next !== undefined && nextButOne !== undefined && WORKSPACE_OBJECTS.has(nextButOne) && /^(daily|open|working|active)$/.test(next));
}

function isYear(term: string): boolean {
  return /^(19|20)\d{2}$/.test(term);
}

/**
 * A follow-up ("and what about its licence?") borrows the content terms of the question before it
 * that it does not repeat. Only when it looks like a follow-up: a pronoun or opener, or almost no
 * content of its own. Nothing from earlier answers or evidence is used.
 */
function contextTermsFrom(history: readonly string[], normalized: string, terms: string[]): string[] {
  const previous = history.length > 0 ? questionRead(history[history.length - 1]) : undefined;
  if (previous === undefined) return [];
  const ownContent = terms.filter((term) => !GENERIC_WORDS.has(term));
  const looksLikeFollowUp = FOLLOW_UP_MARKERS.test(normalized) || ownContent.length <= 1;
  if (!looksLikeFollowUp) return [];
  const own = new Set(terms);
  const previousTerms = contentWords(stripMeta(normalize(previous)).replace(TYPED_TAG, " "));
  return previousTerms.filter((term) => !own.has(term) && !GENERIC_WORDS.has(term) && !isYear(term));
}

const MAX_QUERY_CHARS = 300;

/**
 * One web query is the question itself minus "in my notes" talk (search engines read questions
 * well); a freshness question also gets a keyword query pinned to the current year, so results
 * from the past years do not crowd out this year's.
 */
function providerQueries(
  question: string,
  required: string[],
  phrases: string[],
  fresh: boolean,
  currentYear: number,
): string[] {
  const first = clip(
    stripMeta(question.normalize("NFKC").replace(/\s+/g, " "))
      .replace(TYPED_TAG, " $2")
      .replace(/\s+/g, " ")
      .replace(/\s+([?!.,;:])/g, "$1")
      .replace(/^[\s,;:.\-–—]+/, "")
      .trim(),
  );
  const queries = [first || clip(question.trim())];
  if (fresh) {
    const keywords = [...phrases.map((phrase) => `"${phrase}"`), ...required.filter((t) => !phrases.some((p) => p.includes(t)))];
    if (!/\b(19|20)\d{2}\b/.test(question)) keywords.push(String(currentYear));
    const second = clip(keywords.join(" "));
    if (keywords.length > 1 && second.toLowerCase() !== first.toLowerCase()) queries.push(second);
  }
  return queries;
}

function clip(text: string): string {
  if (text.length <= MAX_QUERY_CHARS) return text;
  const cut = text.slice(0, MAX_QUERY_CHARS);
  const space = cut.lastIndexOf(" ");
  return space > MAX_QUERY_CHARS / 2 ? cut.slice(0, space) : cut;
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
