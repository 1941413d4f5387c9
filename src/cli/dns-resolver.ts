// The fetch guard's name lookup in Node: every address a host name resolves to, so a page whose
// name points at this machine or the local network is refused before it is fetched. Used only
// when pages go to the real network; replay and test stand-ins never look names up.
import { lookup } from "node:dns/promises";
import type { ResolveHost } from "../promote/fetch-guard";
import { HttpFailure } from "../ports";
import { errorMessage } from "../text/error-message";

export const dnsResolveHost: ResolveHost = async (host) => {
  try {
    const found = await lookup(host, { all: true, verbatim: true });
    if (found.length === 0) throw new HttpFailure("network", `${host} has no address.`);
    return found.map((a) => a.address);
  } catch (error) {
    if (error instanceof HttpFailure) throw error;
    const code = (error as { code?: string }).code;
    throw new HttpFailure("network", `${host} could not be looked up${code ? ` (${code})` : `: ${errorMessage(error)}`}.`);
  }
};
