// A note that says nothing beyond its name: `# Default location` over "TODO", an empty file with a
// matching name, a template of `{{date}}` placeholders, an outline of empty headings, a body that
// is only `![[Other note]]` or a Tasks or Dataview query (shown with its results, which we do not
// read). Search finds it by its title, as it should (a user looking for it wants it), and the
// judge's title and opening levers then read the title as the note answering: "what is the
// default location?" was enough on `# Default location` + "TODO", "in one passage".
//
// So before the judge weighs the best notes, each is read for words of its own: its body without
// its headings, lists of links, embeds, queries, template placeholders and a form's empty fields
// ("Status:"), comments, stub marks and a to-do line opening it ("TODO: write down where…"), less
// the words of its title and stop words. A note with none (or a stub mark and hardly any: "This
// page will explain that later.") is bare, and the judge will not call it enough (judge.ts). Its properties are its own words: a film
// note that is nothing but `director`, `year` and `cast` says a great deal. A short real answer
// ("Default location: the vault's root folder.") is not bare.
import { shownProperties } from "../../index/frontmatter";
import { fileTitle } from "../../index/markdown";
import { parseNoteSafely } from "../../index/parse-note-safely";
import { isStopWord } from "../../index/stopwords";
import { foldCase, words, type Analyzer } from "../../index/tokenize";
import type { NoteSection } from "../../index/types";
import { FenceReader, fenceLanguage } from "../../text/code-fences";
import { oneLine } from "../../text/one-line";
import { isLinkListLine } from "./link-lists";

/** What a bare note holds instead of words of its own (closed: the judge's reason says each apart). */
export type BareNote =
  | { kind: "empty" }
  | { kind: "stub"; mark: string }
  | { kind: "template"; placeholder: string }
  | { kind: "empty_fields"; field: string }
  | { kind: "embeds"; embed: string }
  | { kind: "query"; language: string }
  | { kind: "links" }
  | { kind: "headings" };

/** A stub mark says the note is still to be written ("TODO", "coming soon"), in a word or in a
 * sentence that promises the text ("this page will explain that later", "more to come"). */
const STUB_MARK =
  /\b(?:todo|to-do|tbd|tbc|tba|wip|fixme|stub|placeholder|coming soon|work in progress|under construction|to be (?:written|done|added|continued|explained|filled in)|not (?:yet )?written|nothing (?:here )?yet|(?:more|details) (?:to come|later|soon)|(?:will|to) (?:be )?(?:explain|write|fill|add|expand|finish|document)(?:ed|s)?(?: (?:this|that|it|in|out|up|more|here))* later|lorem ipsum)\b/gi;

/** A stub mark that opens the body, then what is still to be done to it ("TODO: write down where
 * attachments go and how to change it"): that line is a to-do, not what the note says, however many
 * words it takes. A mark before a statement ("TODO: the default location is the root folder") is
 * the note's words, as is one that is itself the subject ("TODO is a task marker"). */
const OPENING_STUB = new RegExp(
  String.raw`^[ \t]*(?:>[ \t]*)*(?:[-*+][ \t]+)?(?:\[[ xX]\][ \t]+)?(?:\*\*|__|\*|_)?(?:${STUB_MARK.source})(?:\*\*|__|\*|_)?[ \t]*[:\-–—]?[ \t]*` +
    String.raw`(?:write|add|fill|explain|document|describe|finish|expand|complete|flesh|research|look|find|figure|cover|check|update)\b`,
  "i",
);

/** A form's empty field: a label, its colon and nothing after it ("Status:", "- **Owner:**",
 * Logseq's "source::"), as a template leaves it. The label is the form's word, not the note's. */
const EMPTY_FIELD = /^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?[\p{L}][\p{L}\p{N} '’/-]{0,40}?(?:\*\*|__)?[ \t]*::?[ \t]*(?:\*\*|__)?[ \t]*$/u;

/** With a stub mark, fewer than this many words of its own is still a stub ("TODO: write this"). */
const STUB_WORDS = 3;

/** `{{date}}`, `{{title}}` (the core Templates plugin and others): one line, no braces inside. */
const BRACE_PLACEHOLDER = /\{\{[^{}\n]*\}\}/;

/** `![[Other note]]`, `![alt](image.png)`: another file's text, which the judge does not read. (No
 * brackets inside, so a line of a thousand unclosed `![[` is read once, not once for each.) */
const EMBED = /!\[\[[^[\]\n]*\]\]|!\[[^[\]\n]*\]\([^()\n]*\)/g;

/** A Logseq property line of bookkeeping (`title:: …`, `alias:: …`): the note's name or filing, not its content. */
const NAMING_PROPERTY = /^[ \t]*(?:-[ \t]+)?(?:title|alias|aliases|tags|tag|id|collapsed|icon|public|template)::.*$/gim;

/**
 * Whether the note says nothing of its own beyond its name, and what it holds instead; null when
 * it does say something (or its properties do).
 */
export function bareNote(path: string, text: string, analyzer: Analyzer): BareNote | null {
  const note = parseNoteSafely(path, text);
  const found: Placeholders = { comments: [], templates: [], queries: [] };
  if (note.problems.some((p) => p.kind === "frontmatter") || hasOwnProperty(note.frontmatter, found)) return null;
  const fields: string[] = [];
  const read = withoutEmptyFields(withoutQueries(withoutPlaceholders(note.sections.map((s) => sectionBody(text, s)).join("\n"), found), found), fields);
  const { body, opening } = withoutOpeningStub(read);
  const mark = opening ?? body.match(STUB_MARK)?.[0];
  const own = ownWords(body, [note.title, ...note.aliases, fileTitle(path)].join(" "), analyzer);
  if (own > 0 && (mark === undefined || own >= STUB_WORDS)) return null;
  if (mark !== undefined) return { kind: "stub", mark: oneLine(mark, 40) };
  if (found.templates.length > 0) return { kind: "template", placeholder: oneLine(found.templates[0], 40) };
  if (fields.length > 0) return { kind: "empty_fields", field: oneLine(fields[0], 40) };
  const embed = body.match(EMBED)?.[0];
  if (embed) return { kind: "embeds", embed: oneLine(embed, 60) };
  if (found.queries.length > 0) return { kind: "query", language: found.queries[0] };
  if (body.split("\n").some(isLinkListLine)) return { kind: "links" };
  return note.sections.some((s) => s.level > 0 && s.heading !== note.title) ? { kind: "headings" } : { kind: "empty" };
}

/** Whether a property a reader is shown (not bookkeeping such as `id` or `created`) has a value that is no placeholder. */
function hasOwnProperty(frontmatter: Record<string, unknown>, found: Placeholders): boolean {
  return shownProperties(frontmatter).some((p) => p.values.some((v) => withoutPlaceholders(v.text, found).trim() !== ""));
}

/** What was cut from a body: comments (hidden in reading view), template placeholders, and the languages of live queries. */
interface Placeholders {
  comments: string[];
  templates: string[];
  queries: string[];
}

/**
 * The text without its comments (`%% … %%`, `<!-- … -->`) and template placeholders (`<% … %>`,
 * `{{date}}`). A line that holds a placeholder goes whole: its words are the template's labels
 * ("Created: {{date}}"), not what a note says. A placeholder in backticks is a note about templates
 * writing one down, and stays.
 */
function withoutPlaceholders(text: string, found: Placeholders = { comments: [], templates: [], queries: [] }): string {
  const uncommented = cutBetween(cutBetween(text, "%%", "%%", found.comments), "<!--", "-->", found.comments);
  const lines = uncommented.split("\n").filter((line) => {
    const placeholder = placeholderIn(line.replace(CODE_SPAN, " "));
    if (placeholder !== null) found.templates.push(placeholder);
    return placeholder === null;
  });
  // What is left of Templater's blocks over several lines (`<%* … %>`).
  return cutBetween(lines.join("\n"), "<%", "%>", found.templates);
}

/** Code blocks that Obsidian or a plugin replaces by their results when the note is shown (Tasks,
 * Dataview, a search, a base): the words of the query are not what the note says. */
const QUERY_LANGUAGES: ReadonlySet<string> = new Set(["tasks", "dataview", "dataviewjs", "query", "base", "bases"]);

/**
 * The text without its query blocks (QUERY_LANGUAGES), their languages pushed to `found.queries`.
 * Other code blocks are the note's own words, and a query written down inside one (a note about
 * Tasks showing a ```tasks example in a ````text block) stays with them. Fences are read as
 * Obsidian shows them (code-fences.ts): a query in a callout or a list item runs too.
 */
function withoutQueries(text: string, found: Placeholders): string {
  const kept: string[] = [];
  const reader = new FenceReader();
  let inQuery = false;
  for (const line of text.split("\n")) {
    const part = reader.read(line.endsWith("\r") ? line.slice(0, -1) : line);
    if (part === "opener") {
      const language = fenceLanguage(reader.fence!.rest).toLowerCase();
      inQuery = QUERY_LANGUAGES.has(language);
      if (inQuery) found.queries.push(language);
    } else if (part === "outside") {
      inQuery = false;
    }
    if (!inQuery) kept.push(line);
    if (part === "closer") inQuery = false;
  }
  return kept.join("\n");
}

/** The text without its empty fields (EMPTY_FIELD), each pushed to `fields`; a field in a code block is code, and stays. */
function withoutEmptyFields(text: string, fields: string[]): string {
  const reader = new FenceReader();
  return text
    .split("\n")
    .filter((line) => {
      const plain = line.endsWith("\r") ? line.slice(0, -1) : line;
      if (reader.read(plain) !== "outside" || !EMPTY_FIELD.test(plain)) return true;
      fields.push(plain.trim());
      return false;
    })
    .join("\n");
}

/** The body without the first line that has words when a stub mark opens it (OPENING_STUB), and that mark. */
function withoutOpeningStub(body: string): { body: string; opening?: string } {
  const lines = body.split("\n");
  const first = lines.findIndex((line) => /[\p{L}\p{N}]/u.test(line));
  const opened = first < 0 ? null : OPENING_STUB.exec(lines[first]);
  if (!opened) return { body };
  const mark = lines[first].match(STUB_MARK)?.[0] ?? opened[0].trim();
  return { body: [...lines.slice(0, first), ...lines.slice(first + 1)].join("\n"), opening: mark };
}

/** An inline code span: `{{date}}` written down, not a placeholder. */
const CODE_SPAN = /`[^`\n]*`/g;

/** The first placeholder of one line (`{{date}}`, `<% tp.file.title %>`), or null. */
function placeholderIn(line: string): string | null {
  const brace = line.match(BRACE_PLACEHOLDER)?.[0];
  if (brace !== undefined) return brace;
  const open = line.indexOf("<%");
  const close = open < 0 ? -1 : line.indexOf("%>", open + 2);
  return close < 0 ? null : line.slice(open, close + 2);
}

/**
 * The text with each `open … close` span cut out (and pushed to `cut`); an `open` never closed is
 * left as text. Read once from start to end, however many opens a note holds.
 */
function cutBetween(text: string, open: string, close: string, cut: string[]): string {
  let out = "";
  let at = 0;
  for (;;) {
    const from = text.indexOf(open, at);
    const to = from < 0 ? -1 : text.indexOf(close, from + open.length);
    if (to < 0) return out + text.slice(at);
    cut.push(text.slice(from, to + close.length));
    out += `${text.slice(at, from)} `;
    at = to + close.length;
  }
}

/** The section's text below its heading line (and a setext heading's underline). */
function sectionBody(text: string, section: NoteSection): string {
  const raw = text.slice(section.start, section.end);
  if (section.level === 0) return raw;
  const lines = raw.split("\n");
  const setext = !/^\s{0,3}#/.test(lines[0] ?? "") && /^\s{0,3}(?:=+|-+)\s*$/.test(lines[1] ?? "");
  return lines.slice(setext ? 2 : 1).join("\n");
}

/**
 * How many different words the body (comments and placeholders already cut) holds that are
 * neither its title's nor stop words, outside lists of links, embeds and stub marks.
 */
function ownWords(body: string, names: string, analyzer: Analyzer): number {
  const prose = body
    .replace(NAMING_PROPERTY, " ")
    .split("\n")
    .filter((line) => !isLinkListLine(line))
    .join("\n")
    .replace(EMBED, " ")
    .replace(STUB_MARK, " ");
  const named = new Set(analyzer.terms(names));
  const own = new Set<string>();
  for (const word of words(prose)) {
    // A figure is a word ("8080"); a single letter is not (a list's "a", a stray "x").
    if (isStopWord(foldCase(word)) || (word.length < 2 && !/\d/.test(word))) continue;
    for (const term of analyzer.analyzeWord(word)) if (!named.has(term)) own.add(term);
  }
  return own.size;
}
