// The CLI's one resolver for page fetches (node/pinned-dns.ts). One per process, because the guard
// that checks a name (built with the run's options) and the connection that uses it (the network
// Http) are made in different places and must share what was checked.
import type { ResolveHost } from "../promote/fetch-guard";
import { pinnedDns, type PinnedDns } from "../node/pinned-dns";

export const cliPageDns: PinnedDns = pinnedDns();

/** The fetch guard's lookup in the CLI: every address a name resolves to, pinned for its connection. */
export const dnsResolveHost: ResolveHost = (host, signal) => cliPageDns.resolve(host, signal);
