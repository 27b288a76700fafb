import { ed25519KeyPairFromSeed, ed25519Sign, encodeBase64, portableEd25519 } from "@svc/canonical";
import { bridgeQueryMessage, SvcError } from "@svc/protocol";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { parseBridgeQuery, parsePresenceQuery, verifySignedQuery } from "./signed-query.js";

const NOW = 1_763_780_000_000;
const SEED = new Uint8Array(32).fill(7);
const alice = ed25519KeyPairFromSeed(SEED);

/** Runs `read` on a request to `/?query` and returns what it returned or threw. */
async function withQuery<T>(query: string, read: (c: never) => T): Promise<T | SvcError> {
  const app = new Hono();
  let result: T | SvcError | undefined;
  app.get("/", (c) => {
    try {
      result = read(c as never);
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      result = error;
    }
    return c.text("");
  });
  await app.request(`/?${query}`);
  return result as T | SvcError;
}

function signedStreamQuery(since: number, signedAt = NOW): string {
  const message = bridgeQueryMessage({ address: "alice:1", kind: "stream", since, signedAt });
  const signature = encodeURIComponent(encodeBase64(ed25519Sign(message, SEED)));
  return `address=alice:1&kind=stream&since=${since}&signedAt=${signedAt}&signature=${signature}`;
}

describe("signed bridge queries", () => {
  it("parse and verify against the bound key", async () => {
    const query = await withQuery(signedStreamQuery(5), (c) => parseBridgeQuery(c, "stream"));
    if (query instanceof SvcError) throw query;
    expect(query.since).toBe(5);
    expect(() => verifySignedQuery(portableEd25519, alice.publicKey, query, NOW)).not.toThrow();
  });

  it("refuse a missing registration, another key and a stale signedAt with 401", async () => {
    const query = await withQuery(signedStreamQuery(0, NOW - 300_001), (c) =>
      parseBridgeQuery(c, "stream"),
    );
    if (query instanceof SvcError) throw query;
    const other = ed25519KeyPairFromSeed(new Uint8Array(32).fill(8)).publicKey;
    const codeOf = (run: () => void) => {
      try {
        run();
      } catch (error) {
        return [(error as SvcError).code, (error as SvcError).status];
      }
    };
    expect(codeOf(() => verifySignedQuery(portableEd25519, undefined, query, NOW))).toEqual([
      "SVC_WRONG_KEY",
      401,
    ]);
    expect(codeOf(() => verifySignedQuery(portableEd25519, other, query, NOW))).toEqual([
      "SVC_BAD_SIGNATURE",
      401,
    ]);
    expect(codeOf(() => verifySignedQuery(portableEd25519, alice.publicKey, query, NOW))).toEqual([
      "SVC_STALE_SIGNATURE",
      401,
    ]);
  });

  it.each([
    ["a missing signature", "address=alice:1&kind=stream&signedAt=1"],
    ["another kind", "address=alice:1&kind=poll&signedAt=1&signature=x"],
    ["a repeated parameter", "address=a:1&address=b:1&kind=stream&signedAt=1&signature=x"],
    ["a since with a leading zero", "address=alice:1&kind=stream&since=01&signedAt=1&signature=x"],
  ])("answer %s with 400", async (_, query) => {
    const result = await withQuery(query, (c) => parseBridgeQuery(c, "stream"));
    expect(result).toBeInstanceOf(SvcError);
    expect((result as SvcError).status).toBe(400);
  });

  it("refuse more than 64 watched addresses with SVC_TOO_MANY_WATCHED", async () => {
    const watched = Array.from({ length: 65 }, (_, i) => `peer:${i}`).join(",");
    const result = await withQuery(
      `address=alice:1&kind=presence&watched=${watched}&signedAt=1&signature=x`,
      (c) => parsePresenceQuery(c),
    );
    expect((result as SvcError).code).toBe("SVC_TOO_MANY_WATCHED");
  });
});
