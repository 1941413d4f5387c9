// Which sources fit a question: code and errors → GitHub and Stack Exchange; papers and science →
// arXiv and PubMed; news and "what do people think" → Hacker News; definitions and background →
// Wikipedia. SearXNG and the paid providers take every question. The question's words decide,
// through small cue lists; each decision keeps its reason as data, worded by `describeRoute`
// ("arXiv: question mentions a paper (“paper”)") for the trace, the CLI footer and the panel.
import { PROVIDER_NAMES } from "../provider-names";
import { questionRead } from "../text/cut-text";
import { KEYWORD_SOURCES, onlyOperators } from "./keyword-query";
import type { ProviderName, QuestionTopic } from "./types";

/** One way a question shows a topic: the words that show it, and how the reason says it. */
interface TopicCue {
  topic: QuestionTopic;
  pattern: RegExp;
  says: string;
}

/**
 * Words shaped like code: `quoted`, a named error, `call()`, camelCase, snake_case, a file name, a
 * version. camelCase starts with two small letters and has a small one after the capital
 * (`useEffect`, `getElementById`): with one letter, or capitals after, it is a name or a unit, and
 * "Who founded eBay?", "pH of blood", "iPhone", "mRNA", "kWh", "macOS" went to GitHub and Stack
 * Exchange only. A version is no day: "09.11.1989" (a day, a month, a year) is a date.
 */
const CODE_SHAPES =
  /`[^`]+`|\b[A-Z]\w*(Error|Exception)\b|\b\w+\(\)|\b[a-z]{2,}[A-Z][a-z]\w*\b|\b\w+_\w+\b|\b\w+\.(js|ts|py|rs|go|java|rb|cpp|json|yaml|yml|toml)\b|\bv?(?!(?:0?[1-9]|[12]\d|3[01])\.(?:0?[1-9]|1[0-2])\.(?:1[89]|20)\d\d\b)\d+\.\d+\.\d+\b/;

const TOPIC_CUES: TopicCue[] = [
  { topic: "code", says: "question quotes an error", pattern: /\b(errors?|exceptions?|traceback|stack ?trace|segfault|panic(ked)?|crash(es|ed)?|fails? to|undefined is not|cannot find module|not a function|errno|exit code)\b/i },
  { topic: "code", says: "question looks like code", pattern: CODE_SHAPES },
  { topic: "code", says: "question is about programming", pattern: /\b(code|coding|program(ming)?|librar(y|ies)|packages?|npm|pip|cargo|api|sdk|framework|repo(sitor(y|ies))?|github|open[- ]source|compile[rd]?|function|method|class|regex|git|docker|kubernetes|python|javascript|typescript|rust|golang|java|c\+\+|sql|install(ing|ation)?|configure|implementation|implement|bug|debug(ging)?|deploy(ing|ment)?|upgrade|migrat(e|ion))\b/i },
  { topic: "papers", says: "question mentions a paper", pattern: /\b(papers?|preprints?|arxiv|stud(y|ies)|research(ers)?|journals?|peer[- ]reviewed|citations?|literature|survey|thes[ie]s|meta-analys[ie]s|publications?|published)\b/i },
  { topic: "science", says: "question is about science or mathematics", pattern: /\b(theorems?|proofs?|quantum|physics|mathemat\w*|algorithms?|neural|machine learning|deep learning|transformers?|datasets?|benchmarks?|equations?|statistic\w*|astronom\w*|chemistry|consensus|complexity)\b/i },
  { topic: "medicine", says: "question is about medicine or biology", pattern: /\b(clinical|trials?|patients?|diseases?|symptoms?|treatments?|drugs?|vaccines?|genes?|genetic\w*|proteins?|cancer|tumou?rs?|medic(al|ine)|diagnos\w+|therap(y|ies)|dos(e|age)|pubmed|health|infection|virus(es)?|bacteria\w*|cells?)\b/i },
  { topic: "news", says: "question asks what people think", pattern: /\b(what do (people|developers|users|folks) think|opinions?|reception|reactions?|discussions?|debate|criticism|experiences? with|worth it|hacker news|hn|anyone|community)\b/i },
  { topic: "news", says: "question asks what is new", pattern: /\b(latest|newest|news|announced|announcement|launch(ed)?|release[ds]?|today|this (week|month|year)|recently|as of now|currently)\b/i },
  { topic: "background", says: "question asks for a definition or background", pattern: /^\s*(what|who) (is|are|was|were)\b|\b(define|definition|meaning of|what does .+ mean|history of|overview|explain|introduction to|origins? of|background)\b/i },
];

/** The topics each specialist source takes; the others (general web search) take every question. */
export const SOURCE_TOPICS: Partial<Record<ProviderName, QuestionTopic[]>> = {
  github: ["code"],
  stackexchange: ["code"],
  arxiv: ["papers", "science"],
  pubmed: ["papers", "medicine"],
  hackernews: ["news"],
  wikipedia: ["background"],
};

export interface QuestionReading {
  /** Topics found, in the order of TOPIC_CUES. */
  topics: QuestionTopic[];
  /** For each topic found: how the reason says it and the words that showed it. */
  evidence: Partial<Record<QuestionTopic, { says: string; cue: string }>>;
}

/** What a question is about, from its words alone (the words a question is read by: questionRead). */
export function readQuestion(asked: string): QuestionReading {
  const question = questionRead(asked);
  const evidence: QuestionReading["evidence"] = {};
  for (const { topic, pattern, says } of TOPIC_CUES) {
    if (evidence[topic]) continue;
    const match = pattern.exec(question);
    if (match) evidence[topic] = { says, cue: match[0].trim() };
  }
  return { topics: Object.keys(evidence) as QuestionTopic[], evidence };
}

export type RouteReason =
  /** General web search: every question is its business. */
  | { kind: "takes_every_question" }
  /** The question shows one of the source's topics. */
  | { kind: "fits_topic"; topic: QuestionTopic; says: string; cue: string }
  /** None of the source's topics is in the question. */
  | { kind: "off_topic"; topics: QuestionTopic[] }
  /** The question is search operators and nothing else (`site:github.com`): a keyword source has no word to search for. */
  | { kind: "only_operators"; operators: string[] }
  /** No enabled source fit the question, so all of them are asked rather than none. */
  | { kind: "nothing_fit_better" }
  /** The caller named the sources and asked for no routing. */
  | { kind: "asked_by_name" };

export interface RouteDecision {
  source: ProviderName;
  ask: boolean;
  reason: RouteReason;
}

const TOPIC_WORDS: Record<QuestionTopic, string> = {
  code: "code",
  papers: "papers",
  science: "science",
  medicine: "medicine",
  news: "news or opinions",
  background: "definitions or background",
};

/** One decision per candidate, in the order given. */
export function routeQuestion(question: string, candidates: readonly ProviderName[]): { reading: QuestionReading; decisions: RouteDecision[] } {
  const reading = readQuestion(question);
  // Asked anyway, a keyword source searched "site:github.com" as text, while the answer said the
  // operator had been left out for it.
  const operators = onlyOperators(questionRead(question));
  const decisions = [...new Set(candidates)].map((source): RouteDecision => {
    if (operators.length > 0 && KEYWORD_SOURCES.includes(source)) return { source, ask: false, reason: { kind: "only_operators", operators } };
    const topics = SOURCE_TOPICS[source];
    if (!topics) return { source, ask: true, reason: { kind: "takes_every_question" } };
    const topic = topics.find((t) => reading.evidence[t]);
    if (!topic) return { source, ask: false, reason: { kind: "off_topic", topics } };
    const { says, cue } = reading.evidence[topic]!;
    return { source, ask: true, reason: { kind: "fits_topic", topic, says, cue } };
  });
  if (decisions.length > 0 && operators.length === 0 && decisions.every((d) => !d.ask)) {
    return { reading, decisions: decisions.map((d) => ({ ...d, ask: true, reason: { kind: "nothing_fit_better" } })) };
  }
  return { reading, decisions };
}

/** "arXiv: question mentions a paper (“paper”)", "GitHub: not asked — question is not about code". */
export function describeRoute(decision: RouteDecision): string {
  const name = PROVIDER_NAMES[decision.source].choice;
  const reason = decision.reason;
  switch (reason.kind) {
    case "takes_every_question":
      return `${name}: takes every question`;
    case "fits_topic":
      return `${name}: ${reason.says} (“${reason.cue}”)`;
    case "off_topic":
      return `${name}: not asked — question is not about ${reason.topics.map((t) => TOPIC_WORDS[t]).join(" or ")}`;
    case "only_operators":
      return `${name}: not asked — the question is only search operators (${reason.operators.map((o) => `“${o}”`).join(", ")}), and it searches for words`;
    case "nothing_fit_better":
      return `${name}: no enabled source fits this question better, so each is asked`;
    case "asked_by_name":
      return `${name}: asked by name`;
  }
}
