// Links we write into notes: markdown links to web pages (only http and https, the shown text
// escaped, the address percent-encoded where markdown would end it early) and wikilinks to notes
// in the vault (aliases and headings without the characters link syntax reserves).
import { oneLine } from "../text/one-line";
import { escapeMarkdownText } from "./markdown-escape";

/** Characters that would end a link destination early or let the rest of it read as text. */
const UNSAFE_IN_DESTINATION = /[()<>[\]`"'\s]/g;

/** `[title](url)` for an http(s) URL; anything else is shown as text, never linked. */
export function webLink(title: string, url: string): string {
  const text = escapeMarkdownText(oneLine(title)) || escapeMarkdownText(oneLine(url));
  if (!/^https?:\/\/[^\s]+$/i.test(url.trim())) return `${text} (${escapeMarkdownText(oneLine(url))})`;
  return `[${text}](${linkDestination(url.trim())})`;
}

/**
 * A `%` that starts no escape (`%%`, `100%`): URL parsers keep it as written, and canonicalising
 * `<%tp%>` makes `%3C%tp%%3E`. Two of them make `%%`, which opens an Obsidian comment that would
 * hide the note up to the next one (the labels of the rows below a link included).
 */
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/g;

/**
 * A URL safe as a markdown link destination: each unsafe character percent-encoded as UTF-8, and a
 * `%` that starts no escape written `%25`, what it stands for, so no `%%` is left.
 */
export function linkDestination(url: string): string {
  return url.replace(STRAY_PERCENT, "%25").replace(UNSAFE_IN_DESTINATION, percentEncoded);
}

function percentEncoded(character: string): string {
  return Array.from(new TextEncoder().encode(character), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join("");
}

/** Characters a note's path may hold on disk (a synced or cloned folder) that would end or bend a wikilink. */
const UNLINKABLE_IN_WIKILINK = /[[\]|#^\r\n]|%%|<%/;

/**
 * `[[path#heading|alias]]` to a note of the vault (`.md` dropped); heading and alias optional. A
 * path that a wikilink cannot hold (`a]] ![[b` is a name Linux allows) becomes a markdown link to
 * the note with its path percent-encoded, so it still leads to that note and embeds nothing.
 */
export function wikilink(notePath: string, options: { heading?: string; alias?: string } = {}): string {
  const heading = options.heading ? linkableHeading(options.heading) : "";
  if (UNLINKABLE_IN_WIKILINK.test(notePath)) return noteMarkdownLink(notePath, heading, options.alias);
  const target = `${notePath.replace(/\.md$/i, "")}${heading ? `#${heading}` : ""}`;
  return options.alias === undefined ? `[[${target}]]` : `[[${target}|${wikilinkAlias(options.alias)}]]`;
}

/** Percent-encoded, brackets and the other characters encodeURIComponent leaves included. */
function encodePathPart(part: string): string {
  return encodeURIComponent(part).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function noteMarkdownLink(notePath: string, heading: string, alias: string | undefined): string {
  const shown = escapeMarkdownText(oneLine(alias ?? notePath.replace(/\.md$/i, ""))) || "note";
  const file = /\.md$/i.test(notePath) ? notePath : `${notePath}.md`;
  const target = file.split("/").map(encodePathPart).join("/");
  return `[${shown}](${target}${heading ? `#${encodeURIComponent(heading)}` : ""})`;
}

/** Obsidian links to a heading by its text, minus the characters link syntax reserves. */
export function linkableHeading(heading: string): string {
  return oneLine(heading.replace(/[[\]|#^:%]/g, " "));
}

/**
 * Text shown for a wikilink: brackets and the bar would end it, so they become look-alikes; `<%` is
 * Templater's; `%%` (a page title's, on a promoted note) would hide the note up to the next one, as
 * the path and the heading may not hold it either.
 */
export function wikilinkAlias(text: string): string {
  return oneLine(text).replace(/\[/g, "(").replace(/\]/g, ")").replace(/\|/g, "/").replace(/<%/g, "< %").replace(/%(?=%)/g, "% ");
}
