import { ed25519Sign, encodeBase64 } from "@svc/canonical";
import { bridgeQueryMessage } from "@svc/protocol";
import { bridgeUrl, party, presenceUrl } from "@svc/test-client";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../../../server.js";
import { startTestServer } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { registeredInbox } from "./test-support/running-server.js";

const ALICE = "alice@example.com:1";
const alice = party("alice");
const mallory = party("mallory");

let server: RunningServer;

beforeEach(async () => {
  server = await startTestServer();
  await registeredInbox(server, ALICE, alice);
});

async function answer(url: string) {
  const res = await fetch(url);
  const path = new URL(url).pathname;
  const body = (await expectContract(res, "GET", path)) as { code?: string };
  return { status: res.status, code: body?.code };
}

function withParam(url: string, name: string, value: string | null): string {
  const parsed = new URL(url);
  if (value === null) parsed.searchParams.delete(name);
  else parsed.searchParams.set(name, value);
  return parsed.toString();
}

describe("signed bridge queries", () => {
  it("binds the kind: a stream signature is refused on /poll", async () => {
    const stream = new URL(bridgeUrl(server.url, "stream", alice, ALICE));
    const replayed = `${server.url}/v1/bridge/poll?${withParam(stream.toString(), "kind", "poll").split("?")[1]}`;
    expect(await answer(replayed)).toEqual({ status: 401, code: "SVC_BAD_SIGNATURE" });
  });

  it("refuses a kind that is not the route's with 400", async () => {
    const url = bridgeUrl(server.url, "poll", alice, ALICE);
    expect(await answer(url.replace("/poll?", "/stream?"))).toEqual({
      status: 400,
      code: "SVC_BAD_REQUEST",
    });
  });

  it("binds `since`: a changed cursor is a bad signature", async () => {
    const url = bridgeUrl(server.url, "poll", alice, ALICE, { since: 5 });
    expect(await answer(withParam(url, "since", "4"))).toEqual({
      status: 401,
      code: "SVC_BAD_SIGNATURE",
    });
  });

  it.each([
    ["address", null, "SVC_BAD_REQUEST"],
    ["address", "", "SVC_INVALID_ADDRESS"],
    ["address", "bad,address", "SVC_INVALID_ADDRESS"],
    ["kind", null, "SVC_BAD_REQUEST"],
    ["signedAt", null, "SVC_BAD_REQUEST"],
    ["signedAt", "12.5", "SVC_BAD_REQUEST"],
    ["signedAt", "-1", "SVC_BAD_REQUEST"],
    ["signedAt", "01", "SVC_BAD_REQUEST"],
    ["signedAt", "99999999999999999", "SVC_BAD_REQUEST"],
    ["since", "", "SVC_BAD_REQUEST"],
    ["since", "-5", "SVC_BAD_REQUEST"],
    ["signature", null, "SVC_BAD_REQUEST"],
    ["signature", "AAAA", "SVC_BAD_REQUEST"],
    ["signature", "not base64!", "SVC_BAD_REQUEST"],
  ])("answers %s=%j with 400 %s", async (name, value, code) => {
    for (const kind of ["stream", "poll", "ws"] as const) {
      const url = withParam(bridgeUrl(server.url, kind, alice, ALICE), name, value);
      expect(await answer(url)).toEqual({ status: 400, code });
    }
  });

  it("refuses a parameter given twice with 400", async () => {
    const url = `${bridgeUrl(server.url, "poll", alice, ALICE, { since: 0 })}&since=1`;
    expect(await answer(url)).toEqual({ status: 400, code: "SVC_BAD_REQUEST" });
  });

  it("answers an address without inbox registration with 401 SVC_WRONG_KEY", async () => {
    const url = bridgeUrl(server.url, "stream", mallory, "mallory:1");
    expect(await answer(url)).toEqual({ status: 401, code: "SVC_WRONG_KEY" });
  });

  it("answers a signature by another key with 401 SVC_BAD_SIGNATURE", async () => {
    const url = bridgeUrl(server.url, "stream", mallory, ALICE);
    expect(await answer(url)).toEqual({ status: 401, code: "SVC_BAD_SIGNATURE" });
  });

  it("answers a stale signedAt with 401 SVC_STALE_SIGNATURE", async () => {
    for (const offset of [-300_001 - 2000, 300_001 + 2000]) {
      const url = bridgeUrl(server.url, "poll", alice, ALICE, { signedAt: Date.now() + offset });
      expect(await answer(url)).toEqual({ status: 401, code: "SVC_STALE_SIGNATURE" });
    }
  });

  it("accepts the NFKC form of the address as signed", async () => {
    const url = bridgeUrl(server.url, "poll", alice, "ａlice@example.com:1", {
      extra: { timeoutMs: "0" },
    });
    expect(await answer(url)).toEqual({ status: 200, code: undefined });
  });

  it("reproduces the D7 bridgeQuery vector message", () => {
    const message = bridgeQueryMessage({
      address: "alice@example.com:1",
      kind: "stream",
      since: 1763779999000,
      signedAt: 1763780000000,
    });
    expect(new TextDecoder().decode(message)).toBe(
      '{"address":"alice@example.com:1","kind":"stream","signedAt":1763780000000,"since":1763779999000}',
    );
  });

  it("never answers arbitrary query strings with anything but a documented error", async () => {
    const path = fc.constantFrom("stream", "poll", "ws", "presence");
    const value = fc.oneof(fc.string(), fc.integer().map(String), fc.constant(""));
    const name = fc.constantFrom(
      "address",
      "kind",
      "since",
      "signedAt",
      "signature",
      "watched",
      "timeoutMs",
    );
    await fc.assert(
      fc.asyncProperty(
        path,
        fc.array(fc.tuple(name, value), { maxLength: 7 }),
        async (route, pairs) => {
          const params = new URLSearchParams(pairs);
          const res = await fetch(`${server.url}/v1/bridge/${route}?${params}`);
          expect([400, 401]).toContain(res.status);
          await expectContract(res, "GET", `/v1/bridge/${route}`);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("signed presence queries", () => {
  it("refuses more than 64 watched addresses with 400 SVC_TOO_MANY_WATCHED", async () => {
    const watched = Array.from({ length: 65 }, (_, i) => `peer:${i}`);
    expect(await answer(presenceUrl(server.url, alice, ALICE, watched))).toEqual({
      status: 400,
      code: "SVC_TOO_MANY_WATCHED",
    });
  });

  it("answers an invalid watched address with 400 SVC_INVALID_ADDRESS", async () => {
    const url = withParam(presenceUrl(server.url, alice, ALICE, ["bob:1"]), "watched", "bob:1,,x");
    expect(await answer(url)).toEqual({ status: 400, code: "SVC_INVALID_ADDRESS" });
  });

  it("requires `watched` (which may be empty)", async () => {
    const url = withParam(presenceUrl(server.url, alice, ALICE, []), "watched", null);
    expect(await answer(url)).toEqual({ status: 400, code: "SVC_BAD_REQUEST" });
  });

  it("binds the watched list into the signature", async () => {
    const url = withParam(presenceUrl(server.url, alice, ALICE, ["bob:1"]), "watched", "carol:1");
    expect(await answer(url)).toEqual({ status: 401, code: "SVC_BAD_SIGNATURE" });
  });

  it("refuses an unregistered watcher with 401", async () => {
    expect(await answer(presenceUrl(server.url, mallory, "mallory:1", ["bob:1"]))).toEqual({
      status: 401,
      code: "SVC_WRONG_KEY",
    });
  });

  it("refuses a signature that is well-formed but of another message", async () => {
    const signature = encodeBase64(ed25519Sign(new Uint8Array([1]), alice.seed));
    const url = withParam(presenceUrl(server.url, alice, ALICE, []), "signature", signature);
    expect(await answer(url)).toEqual({ status: 401, code: "SVC_BAD_SIGNATURE" });
  });
});
