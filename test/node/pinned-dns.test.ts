import { describe, expect, it } from "vitest";
import { dnsResolveHost } from "../../src/cli/dns-resolver";
import { PIN_MS, pinnedDns } from "../../src/node/pinned-dns";
import { checkFetchTarget } from "../../src/promote/fetch-guard";
import { HttpFailure } from "../../src/ports";
import { fakeClock } from "../support/fake-clock";

describe("dnsResolveHost: the fetch guard's lookup in the CLI", () => {
  it("gives every address of a name, which the guard then checks", async () => {
    const addresses = await dnsResolveHost("localhost");
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.every((a) => a === "::1" || a.startsWith("127."))).toBe(true);
  });

  it("turns a name that does not exist into a network failure, not a crash", async () => {
    await expect(dnsResolveHost("no-such-host.invalid")).rejects.toBeInstanceOf(HttpFailure);
  });

  it("refuses, through the guard, a dotted name that resolves to this machine", async () => {
    // localhost.localdomain is not caught by name (only `localhost` and `*.localhost` are); the lookup catches it.
    const checked = await checkFetchTarget("http://localhost.localdomain/", { resolve: async () => dnsResolveHost("localhost") });
    expect(checked).toMatchObject({ ok: false, refusal: { how: "resolved", range: "loopback" } });
  });
});

describe("pinnedDns: what the guard checked is what a page connection uses", () => {
  function scripted(answers: string[][]) {
    let n = 0;
    const asked: string[] = [];
    const lookupHost = async (host: string) => {
      asked.push(host);
      return answers[Math.min(n++, answers.length - 1)];
    };
    let now = 0;
    const clock = { now: () => now, sleep: async () => undefined };
    return { asked, lookupHost, clock, advance: (ms: number) => void (now += ms) };
  }

  it("answers a connection from the pin, without a second lookup, until the pin runs out", async () => {
    const s = scripted([["93.184.216.34"], ["127.0.0.1"], ["93.184.216.35"]]);
    const dns = pinnedDns(s.lookupHost, s.clock);
    expect(await dns.resolve("rebind.example")).toEqual(["93.184.216.34"]);
    expect(await dns.connectAddresses("rebind.example")).toEqual(["93.184.216.34"]);
    expect(s.asked).toEqual(["rebind.example"]);
    s.advance(PIN_MS + 1);
    // Past the pin, a connection looks again, and a loopback answer is refused.
    await expect(dns.connectAddresses("rebind.example")).rejects.toThrow("127.0.0.1, which is not a public address");
    expect(await dns.connectAddresses("rebind.example")).toEqual(["93.184.216.35"]);
  });

  it("keeps the checked pin when a later lookup of the name answers an address that is not public", async () => {
    const s = scripted([["93.184.216.34"], ["127.0.0.1"]]);
    const dns = pinnedDns(s.lookupHost, s.clock);
    await dns.resolve("rebind.example");
    // The guard refuses this answer; it must not become what the first, checked fetch connects to.
    expect(await dns.resolve("rebind.example")).toEqual(["127.0.0.1"]);
    expect(await dns.connectAddresses("rebind.example")).toEqual(["93.184.216.34"]);
  });

  it("pins nothing of an answer that holds an address that is not public", async () => {
    const s = scripted([["93.184.216.34", "10.0.0.7"], ["10.0.0.7"]]);
    const dns = pinnedDns(s.lookupHost, s.clock);
    await dns.resolve("rebind.example");
    await expect(dns.connectAddresses("rebind.example")).rejects.toThrow("10.0.0.7, which is not a public address");
  });

  it("lets a pin run out on time when the wall clock was set back an hour meanwhile", async () => {
    const s = scripted([["93.184.216.34"], ["127.0.0.1"]]);
    const clock = fakeClock();
    const dns = pinnedDns(s.lookupHost, clock);
    await dns.resolve("rebind.example");
    clock.set(clock.now() - 3_600_000);
    clock.advance(PIN_MS + 1);
    await expect(dns.connectAddresses("rebind.example")).rejects.toThrow("127.0.0.1, which is not a public address");
  });
});
