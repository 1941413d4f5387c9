// The MCP server's one exit: every message it sends — tool results, tool errors the SDK makes from
// a thrown message, validation errors, the handshake — passes the one secret scrubber
// (text/secret-scrub.ts) on its way out. Scrubbing at the transport, not in each tool, means a tool
// added later, or an error text the SDK writes itself, cannot carry a key past it.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { secretScrubber } from "../../text/secret-scrub";

/** `transport`, whose `send` first replaces every form of every one of these secrets (in place: the SDK keeps its handlers on it). */
export function scrubbedTransport<T extends Transport>(transport: T, secrets: Iterable<string | null | undefined>): T {
  const scrubber = secretScrubber(secrets);
  if (scrubber.empty) return transport;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(scrubber.value(message), options);
  return transport;
}
