// Provider text arrives with HTML decorations (`<strong>`, `&#x27;`) and unbounded length. Web
// text is untrusted and always rendered as text, so it is reduced to plain text here, once.

const namedEntities: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  copy: "©",
  reg: "®",
  trade: "™",
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (match, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : match;
    }
    return namedEntities[body.toLowerCase()] ?? match;
  });
}

/** Tags removed, entities decoded, runs of whitespace collapsed: for one-line snippets and titles. */
export function htmlToLine(text: string): string {
  return decodeEntities(text.replace(/<[^>]*>/g, "")).replace(/\s+/g, " ").trim();
}

/** Cuts `text` to at most `max` characters, at a word boundary when one is near, marking the cut. */
export function cutText(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let cut = text.slice(0, Math.max(0, max - 1));
  const lastSpace = cut.search(/\s\S*$/);
  if (lastSpace > max * 0.8) cut = cut.slice(0, lastSpace);
  return { text: `${cut.trimEnd()}…`, truncated: true };
}

const relativeUnits: Record<string, number> = {
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
  year: 365 * 86_400_000,
};

/**
 * A publication date as ISO 8601, from what providers send: ISO dates and date-times, Brave's
 * relative ages ("14 hours ago") and long dates ("April 27, 2023"). Undefined when unknown.
 */
export function toPublishedDate(value: string | null | undefined, now: number): string | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d{4}-\d{2}-\d{2}/.test(trimmed)) {
    return Number.isNaN(Date.parse(trimmed.slice(0, 10))) ? undefined : trimmed;
  }
  const relative = /^(\d+|an?)\s+(minute|hour|day|week|month|year)s?\s+ago$/i.exec(trimmed);
  if (relative) {
    const amount = /^\d+$/.test(relative[1]) ? Number(relative[1]) : 1;
    const ms = amount * relativeUnits[relative[2].toLowerCase()];
    return new Date(now - ms).toISOString().slice(0, 10);
  }
  // Long dates only ("April 27, 2023", "Wednesday, January 15, 2025"): anything vaguer is dropped.
  if (/\b\d{4}\b/.test(trimmed)) {
    const parsed = Date.parse(`${trimmed.replace(/^[A-Za-z]+day,\s*/, "")} UTC`);
    if (!Number.isNaN(parsed)) return new Date(parsed).toISOString().slice(0, 10);
  }
  return undefined;
}
