import { encodeBase64Url } from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import { createPushSubscriptions } from "@svc/push";
import { InboxClient, inProcess, type Json, party, T0 } from "@svc/test-client";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const ALICE = "alice@example.org:1";
const alice = party("alice");
const PATH = "/v1/push/subscriptions";
const P256DH =
  "BGsX0fLhLEJH-Lzm5WOkQPJ3A32BLeszoPShOUXYmMKWT-NC4v4af5uO5-tKfA-eFivOM1drMV7Oy7ZAaDe_UfU";
const AUTH = encodeBase64Url(new Uint8Array(16).fill(7));
const VALID = { endpoint: "https://203.0.113.7/push/a", keys: { p256dh: P256DH, auth: AUTH } };

/** What every answer may be, by status: the routes' documented codes and nothing else. */
const CODES: Record<number, string[]> = {
  400: [
    "SVC_BAD_REQUEST",
    "SVC_INVALID_ADDRESS",
    "SVC_INVALID_PUSH_SUBSCRIPTION",
    "SVC_PUSH_ENDPOINT_REFUSED",
  ],
  401: ["SVC_BAD_SIGNATURE", "SVC_WRONG_KEY", "SVC_STALE_SIGNATURE"],
  409: ["SVC_TOO_MANY_SUBSCRIPTIONS"],
  413: ["SVC_TOO_LARGE"],
};

async function setup() {
  const svc = await createTestApp({ SVC_RATE_LIMIT: "off" }, { now: () => T0 });
  const client = new InboxClient(inProcess(svc.app));
  expect((await client.register(ALICE, alice)).status).toBe(200);
  const send = async (method: "POST" | "DELETE", body: unknown) => {
    const res = await client.send(method, PATH, body);
    return { status: res.status, body: (await expectContract(res, method, PATH)) as Json };
  };
  const signed = (method: "POST" | "DELETE", fields: Record<string, unknown>) =>
    send(method, client.signed(method, PATH, { address: ALICE, ...fields }, alice));
  const stored = () => createPushSubscriptions(svc.services.storage.db).ofAddresses([ALICE]);
  return { send, signed, stored };
}

function expectDocumented(answer: { status: number; body: Json }, okStatus = 200): void {
  if (answer.status === okStatus) return;
  expect(Object.keys(CODES)).toContain(String(answer.status));
  expect(CODES[answer.status]).toContain(answer.body.code);
}

/**
 * A value a client can sign: numbers that are not safe integers (which the signed form, RFC
 * 8785 JSON restricted to integers, cannot carry) become their text.
 */
const signable = <T>(value: T): T =>
  JSON.parse(
    JSON.stringify(value, (_key, x) =>
      typeof x === "number" && !Number.isSafeInteger(x) ? String(x) : x,
    ),
  );

/** Text that no URL parser takes for an http(s) URL: no DNS lookup is ever made for it. */
const notHttpUrl = fc
  .string({ maxLength: 64 })
  // URL parsing drops control characters and spaces: judged without them.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: those are the ones to drop
  .filter((s) => !/http/i.test(s.replace(/[\u0000-\u0020]/g, "")));
const base64urlish = fc.oneof(
  fc.string({ maxLength: 120 }),
  fc.uint8Array({ maxLength: 100 }).map(encodeBase64Url),
  fc.uint8Array({ minLength: 65, maxLength: 65 }).map(encodeBase64Url),
  fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => `${encodeBase64Url(b)}==`),
);
/** A subscription with one member replaced by a hostile value or arbitrary JSON, or dropped. */
const subscriptions = fc
  .oneof(
    fc.record({
      endpoint: fc.oneof(
        notHttpUrl,
        fc.constantFrom(
          "",
          "http://203.0.113.7/a",
          "https://127.0.0.1/a",
          "https://[::ffff:10.0.0.1]/a",
          "https://[fe80::1]/a",
          "https://0.0.0.0/a",
          "https://224.0.0.1/a",
          "https://100.64.0.1/a",
          "https://u@203.0.113.7/a",
          `https://203.0.113.7/${"a".repeat(1100)}`,
        ),
      ),
      keys: fc.constant(VALID.keys),
    }),
    fc.record({
      endpoint: fc.constant(VALID.endpoint),
      keys: fc.oneof(
        fc.record({ p256dh: base64urlish, auth: fc.constant(AUTH) }),
        fc.record({ p256dh: fc.constant(P256DH), auth: base64urlish }),
        fc.jsonValue(),
      ),
    }),
    fc.record({
      endpoint: fc.constant(VALID.endpoint),
      keys: fc.constant(VALID.keys),
      expirationTime: fc.oneof(
        fc.constantFrom(null, 0, -1, T0, T0 + 1, 2 ** 53, 1.5, "1"),
        fc.jsonValue(),
      ),
    }),
    fc.jsonValue(),
  )
  .map(signable);

describe("push subscription fuzzing", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("answers signed hostile subscriptions with a documented code, never a 500", async () => {
    const { signed, stored } = await setup();
    await fc.assert(
      fc.asyncProperty(subscriptions, async (subscription) => {
        const answer = await signed("POST", { subscription });
        expectDocumented(answer);
        expect((await stored()).length).toBeLessThanOrEqual(8);
      }),
      { numRuns: 150 },
    );
  });

  it("answers arbitrary bodies of both routes with a documented code, never a 500", async () => {
    const { send, signed } = await setup();
    const bodies = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(
        fc.constantFrom("address", "subscription", "endpoint", "signedAt", "signature", "x"),
        fc.jsonValue(),
      ),
    );
    await fc.assert(
      fc.asyncProperty(bodies, fc.constantFrom("POST", "DELETE"), async (body, method) => {
        expectDocumented(await send(method as "POST" | "DELETE", body), -1);
      }),
      { numRuns: 150 },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(notHttpUrl, fc.jsonValue().map(signable)), async (endpoint) => {
        const answer = await signed("DELETE", { endpoint });
        expectDocumented(answer);
        if (answer.status === 200) expect(answer.body).toEqual({ ok: true, removed: false });
      }),
      { numRuns: 100 },
    );
  });
});
