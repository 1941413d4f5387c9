// The fetch guard's name lookup in Node, and the addresses a page connection may then use: the
// CLI's, and the plugin's on desktop, where Obsidian runs on Node too.
//
// Checking a name and then letting the connection look it up again leaves a gap: a name can answer
// a public address to the check and 127.0.0.1 a moment later to the connection (DNS rebinding).
// So the guard's lookup pins what it checked — the name's addresses, all of them public, for a
// short while — and a page connection (page-request.ts) asks `connectAddresses`, which answers from
// the pin and never resolves a pinned name again. A page connection to a name nobody checked
// (none in practice: the guard checks every name it lets through) resolves here and is refused if
// any address is not public. Used only when pages go to the real network; replay and test
// stand-ins never look names up.
import { lookup } from "node:dns/promises";
import { Resolver } from "node:dns/promises";
import { literalAddressRange } from "../promote/address-ranges";
import type { ResolveHost } from "../promote/fetch-guard";
import { HttpFailure, monotonicReading, systemClock, type Clock } from "../ports";
import { errorMessage } from "../text/error-message";

/** How long a checked name's addresses stay the only ones its connections may use. */
export const PIN_MS = 60_000;
/** Names pinned at once; the oldest goes first (a run reads at most a few pages). */
const PINS_KEPT = 256;

/** The system's lookup (getaddrinfo: hosts file, then DNS): every address of a name. */
export const systemLookup: ResolveHost = async (host) => {
  try {
    const found = await lookup(host, { all: true, verbatim: true });
    return nonEmpty(host, found.map((a) => a.address));
  } catch (error) {
    throw lookupFailure(host, error);
  }
};

/** A lookup that asks these DNS servers (`127.0.0.1:5353`) directly, A and AAAA records. */
export function dnsServerLookup(servers: string[]): ResolveHost {
  const resolver = new Resolver();
  resolver.setServers(servers);
  return async (host) => {
    const answers = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    const addresses = answers.flatMap((a) => (a.status === "fulfilled" ? a.value : []));
    if (addresses.length > 0) return addresses;
    const failed = answers.find((a): a is PromiseRejectedResult => a.status === "rejected");
    throw lookupFailure(host, failed?.reason);
  };
}

export interface PinnedDns {
  /** The fetch guard's lookup: the name's addresses, which become the only ones its connections use. */
  resolve: ResolveHost;
  /** The addresses a page connection to `host` may use: the pinned ones, else a fresh lookup with none blocked. */
  connectAddresses(host: string): Promise<string[]>;
}

/**
 * Pins over `lookupHost`, each for PIN_MS on the clock's monotonic reading: on the wall clock, one
 * set back an hour kept a name's addresses pinned an hour past their time, long after its DNS answer
 * had changed.
 */
export function pinnedDns(lookupHost: ResolveHost = systemLookup, clock: Clock = systemClock): PinnedDns {
  const pins = new Map<string, { addresses: string[]; until: number }>();
  const pinned = (host: string): string[] | null => {
    const pin = pins.get(host);
    if (pin && pin.until > monotonicReading(clock)) return pin.addresses;
    pins.delete(host);
    return null;
  };
  return {
    async resolve(host, signal) {
      const addresses = await lookupHost(host, signal);
      // An answer the guard will refuse is never pinned, nor does it unpin what was checked before:
      // two pages of one site read at once, the second lookup answering 127.0.0.1 after the first
      // answered a public address, swapped the loopback into the first page's pin between its check
      // and its connection, which then reached this machine.
      if (blockedAddress(addresses) !== undefined) return addresses;
      pins.delete(host);
      if (pins.size >= PINS_KEPT) pins.delete(pins.keys().next().value as string);
      pins.set(host, { addresses, until: monotonicReading(clock) + PIN_MS });
      return addresses;
    },
    async connectAddresses(host) {
      const addresses = pinned(host) ?? (await lookupHost(host));
      // Pins hold public addresses only; checked again all the same, as the connection's last word.
      const blocked = blockedAddress(addresses);
      if (blocked !== undefined) throw new HttpFailure("network", `${host} resolves to ${blocked}, which is not a public address; the page was not fetched.`);
      return addresses;
    },
  };
}

/** The first address of a lookup's answer that is not a public one. */
function blockedAddress(addresses: readonly string[]): string | undefined {
  return addresses.find((a) => literalAddressRange(a)?.range);
}

function nonEmpty(host: string, addresses: string[]): string[] {
  if (addresses.length === 0) throw new HttpFailure("network", `${host} has no address.`);
  return addresses;
}

function lookupFailure(host: string, error: unknown): HttpFailure {
  if (error instanceof HttpFailure) return error;
  const code = (error as { code?: string } | undefined)?.code;
  return new HttpFailure("network", `${host} could not be looked up${code ? ` (${code})` : `: ${errorMessage(error)}`}.`);
}
