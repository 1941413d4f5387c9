// Someone else's words (a server's, a model's) inside a sentence of ours, as an aside in brackets.
// Their own full stop goes: the closing bracket left it standing before ours, and Tavily's refused
// key read "…(Unauthorized: missing or invalid API key.). Check…". One rule for the web sources,
// the search dial and the model clients.

import { oneLine } from "./one-line";

/** The longest aside, in characters: words past it end in "…". */
export const maxAsideChars = 160;

/**
 * `words` as an aside, " (…)", or "" when they say nothing: on one line, cut to `max`, without a
 * full stop of their own ("…key." becomes " (…key)"); a "?" or a cut's "…" stays.
 */
export function aside(words: string | undefined, max = maxAsideChars): string {
  const line = withoutFinalStops(oneLine(words ?? "", max));
  return line === "" ? "" : ` (${line})`;
}

/**
 * Words with their error code after them as an aside: "…between 1 and 100
 * (paramvalidator-outofrange-minmax)". The words' own full stop goes: it read "100. (paramvalidator-…)".
 * Without a code (or one of white space only), the words stay as said.
 */
export function saidWithCode(words: string, code: string | undefined): string {
  const coded = aside(code);
  return coded === "" ? words : `${withoutFinalStops(words)}${coded}`;
}

/**
 * `text` without the full stops and white space at its end. Walked back by hand: a pattern such as
 * /[.\s]+$/ tries again from every dot of a long run that does not end the text, and an error body
 * of 50,000 dots and a letter held the thread for seconds (a megabyte of them, for hours).
 */
export function withoutFinalStops(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === "." || /\s/.test(text[end - 1]))) end--;
  return text.slice(0, end);
}
