import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { checkEndpoint, REFUSAL } from "./endpoint-policy.js";
import { PushError } from "./errors.js";

vi.mock("node:dns", async (importOriginal) => {
  const { offlineDns } = await import("./test-support/offline-dns.js");
  return offlineDns(await importOriginal());
});

const refusal = async (endpoint: string, allowPrivate = false) => {
  try {
    await checkEndpoint(endpoint, { allowPrivate });
  } catch (error) {
    expect(error).toBeInstanceOf(PushError);
    expect(error).toMatchObject({ code: "ENDPOINT_REFUSED" });
    return (error as PushError).message;
  }
  return undefined;
};

describe("checkEndpoint", () => {
  it.each([
    ["http://push.example.net/x", REFUSAL.notHttps],
    ["ftp://push.example.net/x", REFUSAL.notHttps],
    ["not a url", REFUSAL.notUrl],
    ["https://user:pw@push.example.net/x", REFUSAL.notUrl],
    [`https://push.example.net/${"a".repeat(1024)}`, REFUSAL.notUrl],
    ["https://127.0.0.1/x", REFUSAL.private],
    ["https://127.9.9.9:8443/x", REFUSAL.private],
    ["https://0x7f.1/x", REFUSAL.private],
    ["https://0.0.0.0/x", REFUSAL.private],
    ["https://10.0.0.1/x", REFUSAL.private],
    ["https://10.255.255.255/x", REFUSAL.private],
    ["https://100.64.0.1/x", REFUSAL.private],
    ["https://172.16.0.1/x", REFUSAL.private],
    ["https://172.31.255.254/x", REFUSAL.private],
    ["https://192.168.1.1/x", REFUSAL.private],
    ["https://169.254.169.254/latest/meta-data", REFUSAL.private],
    ["https://192.0.0.8/x", REFUSAL.private],
    ["https://198.18.0.1/x", REFUSAL.private],
    ["https://224.0.0.1/x", REFUSAL.private],
    ["https://255.255.255.255/x", REFUSAL.private],
    ["https://[::1]/x", REFUSAL.private],
    ["https://[::]/x", REFUSAL.private],
    ["https://[fc00::1]/x", REFUSAL.private],
    ["https://[fd12:3456::1]/x", REFUSAL.private],
    ["https://[fe80::1]/x", REFUSAL.private],
    ["https://[ff02::1]/x", REFUSAL.private],
    ["https://[::ffff:127.0.0.1]/x", REFUSAL.private],
    ["https://[::ffff:10.1.2.3]/x", REFUSAL.private],
    ["https://[::ffff:0:192.168.0.1]/x", REFUSAL.private],
    ["https://[64:ff9b::a9fe:a9fe]/x", REFUSAL.private],
    ["https://localhost/x", REFUSAL.private],
    ["https://push.invalid/x", REFUSAL.unresolved],
  ])("refuses %s: %s", async (endpoint, reason) => {
    expect(await refusal(endpoint)).toBe(reason);
  });

  it.each([
    "https://93.184.215.14/wpush",
    "https://172.32.0.1/x",
    "https://100.128.0.1/x",
    "https://[2001:4860:4860::8888]/x",
    "https://[::ffff:93.184.215.14]/x",
  ])("takes a public address: %s", async (endpoint) => {
    expect(await refusal(endpoint)).toBeUndefined();
  });

  it.each([
    "http://127.0.0.1:8080/x",
    "https://127.0.0.1/x",
    "http://localhost/x",
    "https://10.0.0.1/x",
    "https://[::1]/x",
    "https://[fe80::1]/x",
  ])("takes %s with allowPrivate", async (endpoint) => {
    expect(await refusal(endpoint, true)).toBeUndefined();
  });

  it("still refuses other schemes, credentials and unresolvable hosts with allowPrivate", async () => {
    expect(await refusal("ws://127.0.0.1/x", true)).toBe(REFUSAL.notHttps);
    expect(await refusal("http://u@127.0.0.1/x", true)).toBe(REFUSAL.notUrl);
    expect(await refusal("http://push.invalid/x", true)).toBe(REFUSAL.unresolved);
  });

  it("throws nothing but PushError ENDPOINT_REFUSED on any input", async () => {
    const hosts = fc.oneof(
      fc.ipV4(),
      fc.ipV6().map((ip) => `[${ip}]`),
      fc.constantFrom("localhost", "push.invalid"),
      // Names under .invalid never resolve (RFC 6761): the fuzz asks no real DNS.
      fc.domain().map((name) => `${name}.invalid`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc
            .tuple(
              fc.constantFrom("https://", "http://", "ftp://", "https://a@"),
              hosts,
              fc.webPath(),
            )
            .map((parts) => parts.join("")),
        ),
        fc.boolean(),
        async (endpoint, allowPrivate) => {
          await refusal(endpoint, allowPrivate);
        },
      ),
      { numRuns: 300 },
    );
  });
});
