// The wait a `Retry-After` header asks for: delay-seconds or an HTTP date (RFC 9110, section
// 10.2.3). One reading for the web sources and the model and embedding servers: a server that
// sends a date (as proxies and some gateways do) was read as no wait at all by one of them.

/**
 * The longest wait a rate limit is believed to ask for: a day (Stack Exchange's daily quota resets
 * within one). A larger number is a server's mistake (milliseconds sent as seconds, a date in 2999,
 * 400 nines: Infinity, which an embedding run said as "about Infinity h NaN min"); believed, it held
 * every later call back for good. Whoever says the wait says one this long as "a day or more".
 */
export const maxRetryAfterMs = 86_400_000;

/** The wait in ms (never below 0, never above `maxRetryAfterMs`), or undefined when the header is absent or unreadable. */
export function retryAfterHeaderMs(header: string | undefined, now: number): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.min(Math.round(Number(value) * 1000), maxRetryAfterMs);
  // An HTTP date names a day in letters ("Mon, 07 Dec 2026 10:00:30 GMT"); Date.parse alone would
  // take "-5" for a year.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - now), maxRetryAfterMs);
}
