import { describe, expect, it } from "vitest";
import { ipv4Range, ipv6Range, literalAddressRange, parseIpv4, parseIpv6 } from "../../src/promote/address-ranges";

describe("parseIpv4: every spelling a URL parser accepts", () => {
  it("reads dotted decimal, hex, octal, and fewer than four parts", () => {
    const loopback = 0x7f000001;
    for (const text of ["127.0.0.1", "127.1", "127.0.1", "0x7f.1", "0x7F000001", "2130706433", "017700000001", "0177.0.0.01", "127.0.0.1."]) {
      expect(parseIpv4(text), text).toBe(loopback);
    }
  });

  it("is not fooled into reading names or out-of-range numbers", () => {
    for (const text of ["example.org", "1.2.3.4.5", "256.1.1.1", "1.2.3.256", "4294967296", "08.1.1.1", "0x", "", "1..2"]) {
      expect(parseIpv4(text), text).toBe(text === "0x" ? 0 : null);
    }
  });
});

describe("parseIpv6", () => {
  it("expands ::, reads embedded IPv4 and drops brackets and a zone", () => {
    expect(parseIpv6("::1")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("[::ffff:127.0.0.1]")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIpv6("fe80::1%eth0")).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("2001:db8:0:0:0:0:0:1")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1]);
  });

  it("refuses what is not an IPv6 address", () => {
    for (const text of ["example.org", "1::2::3", "1:2:3:4:5:6:7:8:9", "12345::", "::g", "1:2:3:4:5:6:7"]) expect(parseIpv6(text), text).toBeNull();
  });
});

describe("ranges", () => {
  it("names the IPv4 ranges that are not the public internet", () => {
    expect(ipv4Range(parseIpv4("10.255.0.1")!)).toBe("private");
    expect(ipv4Range(parseIpv4("172.15.255.255")!)).toBeNull();
    expect(ipv4Range(parseIpv4("198.18.0.1")!)).toBe("reserved");
    expect(ipv4Range(parseIpv4("1.1.1.1")!)).toBeNull();
  });

  it("looks through IPv6 forms that carry an IPv4 address, Teredo's inverted one included", () => {
    // Teredo 2001:0:…:ffff:ffff carries the client address 0.0.0.0 (bits inverted): unspecified.
    expect(ipv6Range(parseIpv6("2001:0:4136:e378:8000:63bf:ffff:ffff")!)).toBe("unspecified");
    // …and 80ff:fefe inverted is 127.0.1.1.
    expect(ipv6Range(parseIpv6("2001:0:4136:e378:8000:63bf:80ff:fefe")!)).toBe("loopback");
    expect(ipv6Range(parseIpv6("64:ff9b::8.8.8.8")!)).toBeNull();
    expect(ipv6Range(parseIpv6("2001:db8::1")!)).toBe("reserved");
    expect(ipv6Range(parseIpv6("2606:4700::1111")!)).toBeNull();
  });

  it("says null for a name, and gives the canonical spelling of a literal", () => {
    expect(literalAddressRange("example.org")).toBeNull();
    expect(literalAddressRange("0x7f.1")).toEqual({ address: "127.0.0.1", range: "loopback" });
    expect(literalAddressRange("8.8.8.8")).toEqual({ address: "8.8.8.8", range: null });
  });
});
