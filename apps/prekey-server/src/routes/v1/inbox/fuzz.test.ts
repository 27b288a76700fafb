import { envelope, InboxClient, inProcess, party, T0 } from "@svc/test-client";
import fc from "fast-check";
import { beforeEach, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";

const ALICE = "alice@example.com:1";
const alice = party("alice");
const sender = party("sender");

let client: InboxClient;
beforeEach(async () => {
  const svc = await createTestApp({ SVC_INBOX_MAX_BLOB_BYTES: "512" }, { now: () => T0 });
  client = new InboxClient(inProcess(svc.app));
  await client.register(ALICE, alice);
});

const member = fc.constantFrom(
  "msgId",
  "ciphertext",
  "expiresAt",
  "senderPublicKey",
  "from",
  "signedAt",
  "signature",
  "cursor",
  "limit",
  "@path",
  "__proto__",
);
const anyValue = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(1.5, -1, 2 ** 53, 1e308, "", "AgE=", "=", null),
);
const mutation = fc.array(fc.tuple(member, fc.option(anyValue)), { maxLength: 4 });

/** Applies mutations (a null value deletes the member) and sends the body, raw or re-signed. */
async function sendMutated(
  method: string,
  path: string,
  base: Record<string, unknown>,
  mutations: Array<[string, unknown]>,
  resign: boolean,
) {
  const body: Record<string, unknown> = { ...base };
  for (const [name, value] of mutations) {
    if (value === null) delete body[name];
    else
      Object.defineProperty(body, name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  let sent: unknown = body;
  if (resign) {
    try {
      const { signature: _, ...fields } = body;
      sent = client.signed(method, path, fields, sender);
    } catch {
      // not signable (a fraction, an @ member): send as is
    }
  }
  const res = await client.send(method, path, sent);
  expect([200, 400, 401, 404, 409, 413, 429]).toContain(res.status);
  await expectContract(res, method, path);
}

describe("inbox bodies under fuzzing", { timeout: 120_000 }, () => {
  it("never answer a batch of deposits (with or without deviceLists) with a 500, and answer each item as its route would", async () => {
    const item = fc.record({
      address: fc.oneof(fc.constant(ALICE), fc.string({ maxLength: 40 })),
      n: fc.nat(1000),
      mutations: mutation,
    });
    const deviceLists = fc.array(
      fc.record(
        {
          account: fc.oneof(fc.constant("alice@example.com"), fc.string({ maxLength: 40 })),
          version: fc.oneof(fc.integer({ min: -1, max: 3 }), anyValue),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 34 },
    );
    const wrapper = fc.oneof(
      fc.constant(undefined),
      fc.tuple(fc.constantFrom("deposits", "deviceLists", "extra", "__proto__"), anyValue),
      fc.tuple(fc.constant("deviceLists"), deviceLists),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(item, { maxLength: 34 }), wrapper, async (items, wrap) => {
        const deposits = items.map(({ address, n, mutations }) => {
          const body: Record<string, unknown> = {
            ...client.depositBody(ALICE, sender, envelope(n)),
          };
          for (const [name, value] of mutations as Array<[string, unknown]>) {
            if (value === null) delete body[name];
            else body[name] = value;
          }
          return { address, body };
        });
        const batch: Record<string, unknown> = { deposits };
        if (wrap !== undefined) {
          Object.defineProperty(batch, wrap[0], {
            value: wrap[1],
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        const res = await client.send("POST", "/v1/deposits", batch);
        // 409: deviceLists naming a version that is not the latest (this account has no list).
        expect([200, 400, 409, 413]).toContain(res.status);
        const answer = (await expectContract(res, "POST", "/v1/deposits")) as {
          results?: Array<{ status: number }>;
        };
        if (res.status === 200) {
          expect(answer.results).toHaveLength(deposits.length);
          for (const result of answer.results ?? []) {
            expect([200, 400, 401, 404, 409, 413, 429]).toContain(result.status);
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it("never answer a deposit with a 500", async () => {
    const path = `/v1/inbox/${ALICE}`;
    await fc.assert(
      fc.asyncProperty(fc.nat(1000), mutation, fc.boolean(), async (n, mutations, resign) => {
        const base = client.depositBody(ALICE, sender, envelope(n));
        await sendMutated("POST", path, base, mutations as Array<[string, unknown]>, resign);
      }),
      { numRuns: 150 },
    );
  });

  it("never answer a fetch with a 500", async () => {
    const path = `/v1/inbox/${ALICE}/fetch`;
    await fc.assert(
      fc.asyncProperty(mutation, fc.boolean(), async (mutations, resign) => {
        const base = client.signed("POST", path, { cursor: null, limit: 10 }, alice);
        await sendMutated("POST", path, base, mutations as Array<[string, unknown]>, resign);
      }),
      { numRuns: 150 },
    );
  });

  it("never answer arbitrary body text with a 500", async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), async (text) => {
        for (const path of [`/v1/inbox/${ALICE}`, `/v1/inbox/${ALICE}/fetch`]) {
          const res = await client.send("POST", path, text);
          expect(res.status).toBeLessThan(500);
          await expectContract(res, "POST", path);
        }
      }),
      { numRuns: 100 },
    );
  });
});
