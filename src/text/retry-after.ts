// The wait a `Retry-After` header asks for: delay-seconds or an HTTP date (RFC 9110, section
// 10.2.3). One reading for the web sources and the model and embedding servers: a server that
// sends a date (as proxies and some gateways do) was read as no wait at all by one of them.

/** The wait in ms (never below 0), or undefined when the header is absent or unreadable. */
export function retryAfterHeaderMs(header: string | undefined, now: number): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  // An HTTP date names a day in letters ("Mon, 07 Dec 2026 10:00:30 GMT"); Date.parse alone would
  // take "-5" for a year.
  const date = /[a-z]/i.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
