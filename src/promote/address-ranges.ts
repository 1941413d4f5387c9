// Which network addresses a page fetch must never reach: the device itself, the local network,
// and the ranges that are not the public internet. Literal addresses are read the way a URL
// parser reads them (IPv4 in decimal, hex, octal or fewer than four parts; IPv6 with `::`, a zone,
// an embedded IPv4 or an IPv4-mapped form), so `0x7f.1`, `2130706433` and `[::ffff:7f00:1]` are
// all the loopback address they spell.

/** Why an address is not a public one. */
export type BlockedRange =
  | "loopback"
  | "private"
  | "shared"
  | "link_local"
  | "unique_local"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved";

/** A blocked range in words, for messages: "a loopback (this device)". */
export const BLOCKED_RANGE_WORDS: Record<BlockedRange, string> = {
  loopback: "a loopback address (this device)",
  private: "a private-network address",
  shared: "a carrier-grade NAT address (a provider's private network)",
  link_local: "a link-local address (the local network segment)",
  unique_local: "a unique-local IPv6 address (a private network)",
  unspecified: "the unspecified address (this device)",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
  reserved: "a reserved address that is not on the public internet",
};

/** [first address, prefix length, range] for IPv4, most specific where they overlap. */
const IPV4_BLOCKS: readonly [string, number, BlockedRange][] = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link_local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "multicast"],
  ["255.255.255.255", 32, "broadcast"],
  ["240.0.0.0", 4, "reserved"],
];

/** An IPv4 literal as a 32-bit number, read as WHATWG URL parsing reads hosts; null when it is not one. */
export function parseIpv4(host: string): number | null {
  const parts = host.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = ipv4Part(part);
    if (n === null) return null;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  return numbers.reduce((sum, n, i) => sum + n * 256 ** (3 - i), 0) + last;
}

function ipv4Part(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return null;
}

/** An IPv6 literal (brackets and a `%zone` allowed) as eight 16-bit groups; null when it is not one. */
export function parseIpv6(host: string): number[] | null {
  let text = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const zone = text.indexOf("%");
  if (zone !== -1) text = text.slice(0, zone);
  if (!text.includes(":") || !/^[0-9a-f:.]+$/i.test(text)) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0]);
  const tail = halves.length === 2 ? groupsOf(halves[1]) : [];
  if (head === null || tail === null) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  return [...head, ...new Array<number>(halves.length === 2 ? missing : 0).fill(0), ...tail];
}

function groupsOf(text: string): number[] | null {
  if (text === "") return [];
  const out: number[] = [];
  const pieces = text.split(":");
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i];
    if (i === pieces.length - 1 && piece.includes(".")) {
      const v4 = /^\d{1,3}(\.\d{1,3}){3}$/.test(piece) ? parseIpv4(piece) : null;
      if (v4 === null) return null;
      out.push(Math.floor(v4 / 65536), v4 % 65536);
    } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
      out.push(parseInt(piece, 16));
    } else {
      return null;
    }
  }
  return out;
}

export function ipv4Range(address: number): BlockedRange | null {
  for (const [first, bits, range] of IPV4_BLOCKS) {
    const base = parseIpv4(first)!;
    const size = 2 ** (32 - bits);
    if (address >= base && address < base + size) return range;
  }
  return null;
}

/** The blocked range of an IPv6 address, looking through the forms that carry an IPv4 one. */
export function ipv6Range(groups: readonly number[]): BlockedRange | null {
  const embedded = embeddedIpv4(groups);
  if (embedded !== null) return ipv4Range(embedded);
  const [g0, g1] = groups;
  if (groups.every((g) => g === 0)) return "unspecified";
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return "loopback";
  if ((g0 & 0xffc0) === 0xfe80) return "link_local";
  if ((g0 & 0xffc0) === 0xfec0) return "private"; // site-local, deprecated but still routed inside sites
  if ((g0 & 0xfe00) === 0xfc00) return "unique_local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  if (g0 === 0x0064 && g1 === 0xff9b && groups[2] === 1) return "private"; // local-use NAT64 (64:ff9b:1::/48)
  if (g0 === 0x0100 && groups.slice(1, 4).every((g) => g === 0)) return "reserved"; // discard-only
  if (g0 === 0x2001 && g1 === 0x0db8) return "reserved"; // documentation
  return null;
}

/** The IPv4 address inside a mapped, translated, NAT64, 6to4 or Teredo IPv6 address. */
function embeddedIpv4(g: readonly number[]): number | null {
  const low = g[6] * 65536 + g[7];
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return low; // ::ffff:a.b.c.d, IPv4-mapped
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return low; // ::ffff:0:a.b.c.d, IPv4-translated
  if (g[0] === 0x0064 && g[1] === 0xff9b && zeros(2, 6)) return low; // 64:ff9b::/96, NAT64
  if (g[0] === 0x2002) return g[1] * 65536 + g[2]; // 2002::/16, 6to4
  if (g[0] === 0x2001 && g[1] === 0) return (~low >>> 0) >>> 0; // Teredo: the client's address, bits inverted
  if (zeros(0, 6) && low > 1) return low; // ::a.b.c.d, IPv4-compatible (deprecated)
  return null;
}

/** The blocked range of a literal address (IPv4 or IPv6); null for a public one or a name. */
export function literalAddressRange(host: string): { address: string; range: BlockedRange | null } | null {
  const v6 = parseIpv6(host);
  if (v6 !== null) return { address: v6.map((g) => g.toString(16)).join(":"), range: ipv6Range(v6) };
  const v4 = parseIpv4(host);
  if (v4 !== null) return { address: ipv4Text(v4), range: ipv4Range(v4) };
  return null;
}

function ipv4Text(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join(".");
}
