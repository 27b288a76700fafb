import { signBody } from "@svc/protocol";
import {
  depositPath,
  envelope,
  InboxClient,
  inProcess,
  msgIdOf,
  party,
  T0,
} from "@svc/test-client";
import { beforeEach, describe, expect, it } from "vitest";
import type { SvcApp } from "../../../app.js";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";

const ALICE = "alice@example.com:1";
const ALICE_2 = "alice@example.com:2";
const PATH = "/v1/deposits";
const alice = party("alice");
const alice2 = party("alice-2");
const sender = party("sender");
const other = party("other-sender");

let svc: SvcApp;
let client: InboxClient;
const clock = { now: T0 };
beforeEach(async () => {
  clock.now = T0;
  svc = await createTestApp(
    { SVC_INBOX_MAX_BLOB_BYTES: "1024", SVC_INBOX_QUOTA: "3" },
    { now: () => clock.now },
  );
  client = new InboxClient(inProcess(svc.app), () => clock.now);
  await client.register(ALICE, alice);
  await client.register(ALICE_2, alice2);
});

const item = (address: string, n: number, fields = {}) => ({
  address,
  body: client.depositBody(address, sender, envelope(n), fields),
});

async function fetched(address: string, owner = alice): Promise<string[]> {
  const res = await client.fetch(address, owner);
  const { items } = (await res.json()) as { items: Array<{ msgId: string }> };
  return items.map((entry) => entry.msgId);
}

describe("POST /v1/deposits", () => {
  it("stores each deposit as its own route would and answers each in order", async () => {
    const res = await client.depositBatch([item(ALICE, 1), item(ALICE_2, 2), item(ALICE, 1)]);
    expect(res.status).toBe(200);
    const stored = { status: 200, idempotent: false, expiresAt: T0 + 3_600_000 };
    expect(await expectContract(res, "POST", PATH)).toEqual({
      results: [stored, stored, { status: 200, idempotent: true }],
    });
    expect(await fetched(ALICE)).toEqual([msgIdOf(envelope(1))]);
    expect(await fetched(ALICE_2, alice2)).toEqual([msgIdOf(envelope(2))]);
  });

  it("answers a refused item with its route's status and code, storing the others", async () => {
    const badlySigned = item(ALICE, 3);
    badlySigned.body.signature = signBody("POST", depositPath(ALICE), badlySigned.body, other.seed);
    // Signed for another recipient's path: the signature binds the deposit to its address.
    const moved = { address: ALICE_2, body: item(ALICE, 4).body };
    const res = await client.depositBatch([
      item("nobody@example.com:1", 1),
      badlySigned,
      moved,
      item(ALICE, 5, { signedAt: T0 - 10 * 60_000 }),
      item(ALICE, 6, { msgId: msgIdOf(envelope(7)) }),
      item("not an address", 8),
      item(ALICE_2, 9),
    ]);
    expect(res.status).toBe(200);
    const { results } = (await expectContract(res, "POST", PATH)) as {
      results: Array<{ status: number; code?: string }>;
    };
    expect(results.map((r) => [r.status, r.code])).toEqual([
      [404, "SVC_NOT_REGISTERED"],
      [401, "SVC_BAD_SIGNATURE"],
      [401, "SVC_BAD_SIGNATURE"],
      [409, "SVC_STALE_SIGNATURE"],
      [409, "SVC_MSGID_MISMATCH"],
      [400, "SVC_INVALID_ADDRESS"],
      [200, undefined],
    ]);
    expect(await fetched(ALICE)).toEqual([]);
    expect(await fetched(ALICE_2, alice2)).toEqual([msgIdOf(envelope(9))]);
  });

  it("answers an item whose ciphertext is over the blob limit 413, as its route would", async () => {
    const large = {
      address: ALICE,
      body: { ...item(ALICE, 1).body, ciphertext: "A".repeat(8000) },
    };
    const res = await client.depositBatch([large, item(ALICE, 2)]);
    const { results } = (await res.json()) as { results: Array<{ status: number; code?: string }> };
    expect(results.map((r) => [r.status, r.code])).toEqual([
      [413, "SVC_TOO_LARGE"],
      [200, undefined],
    ]);
  });

  it("keeps each recipient's quota exact within one batch", async () => {
    const res = await client.depositBatch([1, 2, 3, 4, 5].map((n) => item(ALICE, n)));
    const { results } = (await res.json()) as { results: Array<{ status: number; code?: string }> };
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.code === "SVC_QUOTA_EXCEEDED")).toHaveLength(2);
    expect(await fetched(ALICE)).toHaveLength(3);
  });

  it("refuses a malformed or oversized batch as a whole, storing nothing", async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ deposits: [] }, 400, "SVC_BAD_REQUEST"],
      [{ deposits: [item(ALICE, 1)], extra: 1 }, 400, "SVC_BAD_REQUEST"],
      [{ deposits: [{ address: ALICE, body: { msgId: "x" } }] }, 400, "SVC_BAD_REQUEST"],
      [{ deposits: Array.from({ length: 33 }, () => item(ALICE, 1)) }, 400, "SVC_BAD_REQUEST"],
      [
        {
          deposits: Array.from({ length: 32 }, (_, n) =>
            item(ALICE, n, { from: "x".repeat(10_000) }),
          ),
        },
        413,
        "SVC_TOO_LARGE",
      ],
    ];
    for (const [body, status, code] of cases) {
      const res = await client.send("POST", PATH, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(await expectContract(res, "POST", PATH)).toMatchObject({ code });
    }
    expect(await fetched(ALICE)).toEqual([]);
  });

  it("answers 404 SVC_FEATURE_DISABLED when the inbox is off", async () => {
    const off = await createTestApp({ SVC_INBOX: "off" });
    const res = await new InboxClient(inProcess(off.app)).depositBatch([item(ALICE, 1)]);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "SVC_FEATURE_DISABLED" });
  });
});
