import { describe, expect, it } from "vitest";
import { dnsResolveHost } from "../../src/cli/dns-resolver";
import { checkFetchTarget } from "../../src/promote/fetch-guard";
import { HttpFailure } from "../../src/ports";

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
