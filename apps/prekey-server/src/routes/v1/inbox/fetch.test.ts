import { encodeBase64 } from "@svc/canonical";
import { envelope, InboxClient, inProcess, msgIdOf, party, T0 } from "@svc/test-client";
import { beforeEach, describe, expect, it } from "vitest";
import type { SvcApp } from "../../../app.js";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";

const ALICE = "alice@example.com:1";
const FETCH = `/v1/inbox/${ALICE}/fetch`;
const alice = party("alice");
const sender = party("sender");
const mallory = party("mallory");

interface Page {
  items: Array<{ msgId: string; ciphertext: string; receivedAt: number; expiresAt: number }>;
  nextCursor: string | null;
}

let svc: SvcApp;
let client: InboxClient;
const clock = { now: T0 };
beforeEach(async () => {
  clock.now = T0;
  svc = await createTestApp({}, { now: () => clock.now });
  client = new InboxClient(inProcess(svc.app), () => clock.now);
  await client.register(ALICE, alice);
});

async function page(fields: Record<string, unknown> = {}): Promise<Page> {
  const res = await client.fetch(ALICE, alice, fields);
  expect(res.status).toBe(200);
  return (await expectContract(res, "POST", FETCH)) as Page;
}

async function expectError(
  res: Response,
  method: string,
  path: string,
  status: number,
  code: string,
) {
  expect(res.status).toBe(status);
  expect(await expectContract(res, method, path)).toMatchObject({ code });
}

describe("POST /v1/inbox/{address}/fetch", () => {
  it("returns blobs oldest first and pages by cursor until nextCursor is null", async () => {
    for (let n = 0; n < 5; n++) {
      clock.now = T0 + 10 * n;
      await client.deposit(ALICE, sender, envelope(n));
    }
    const all = await page();
    expect(all.nextCursor).toBeNull();
    expect(all.items[0]).toEqual({
      msgId: msgIdOf(envelope(0)),
      ciphertext: encodeBase64(envelope(0)),
      receivedAt: T0,
      expiresAt: T0 + 3_600_000,
    });
    expect(all.items.map((item) => item.receivedAt)).toEqual(
      [0, 10, 20, 30, 40].map((d) => T0 + d),
    );

    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const next: Page = await page({ cursor, limit: 2 });
      seen.push(...next.items.map((item) => item.receivedAt));
      cursor = next.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual(all.items.map((item) => item.receivedAt));

    const metrics = await (await svc.app.request("/metrics")).text();
    expect(metrics).toContain("svc_inbox_fetch_total 10");
  });

  it("accepts limit 1..100 and answers 0, 101, 1.5 and strings with 400", async () => {
    await client.deposit(ALICE, sender, envelope(1));
    await client.deposit(ALICE, sender, envelope(2));
    expect((await page({ limit: 1 })).items).toHaveLength(1);
    expect((await page({ limit: 100 })).items).toHaveLength(2);
    for (const limit of [0, 101, -1, "5"]) {
      await expectError(
        await client.fetch(ALICE, alice, { limit }),
        "POST",
        FETCH,
        400,
        "SVC_BAD_REQUEST",
      );
    }
    const fraction = { ...client.signed("POST", FETCH, {}, alice), limit: 1.5 };
    await expectError(
      await client.send("POST", FETCH, fraction),
      "POST",
      FETCH,
      400,
      "SVC_BAD_REQUEST",
    );
  });

  it("answers a forged, malformed or foreign cursor with 400", async () => {
    for (let n = 0; n < 3; n++) await client.deposit(ALICE, sender, envelope(n));
    const { nextCursor } = await page({ limit: 1 });
    expect(nextCursor).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const cursor = nextCursor as string;
    const forged = (cursor[0] === "A" ? "B" : "A") + cursor.slice(1);
    for (const bad of [forged, "not a cursor", "", 42]) {
      const res = await client.fetch(ALICE, alice, { cursor: bad });
      await expectError(res, "POST", FETCH, 400, "SVC_BAD_REQUEST");
    }
    await client.register("bob:1", alice);
    const foreign = await client.fetch("bob:1", alice, { cursor });
    await expectError(foreign, "POST", "/v1/inbox/bob:1/fetch", 400, "SVC_BAD_REQUEST");
  });

  it("never returns a blob at or past its expiresAt, even before pruning", async () => {
    await client.deposit(ALICE, sender, envelope(1), { expiresAt: 0 });
    await client.deposit(ALICE, sender, envelope(2), { expiresAt: T0 + 120_000 });
    clock.now = T0 + 59_999;
    expect((await page()).items).toHaveLength(2);
    clock.now = T0 + 60_000;
    expect((await page()).items.map((item) => item.msgId)).toEqual([msgIdOf(envelope(2))]);
  });

  it("authenticates with the bound key: 401 unregistered or wrong key, 409 stale", async () => {
    const unbound = await client.fetch("nobody:1", alice);
    await expectError(unbound, "POST", "/v1/inbox/nobody:1/fetch", 401, "SVC_WRONG_KEY");
    await expectError(await client.fetch(ALICE, mallory), "POST", FETCH, 401, "SVC_BAD_SIGNATURE");
    const stale = await client.fetch(ALICE, alice, { signedAt: T0 + 300_001 });
    await expectError(stale, "POST", FETCH, 409, "SVC_STALE_SIGNATURE");
  });
});

describe("DELETE /v1/inbox/{address}/{msgId}", () => {
  const msgId = msgIdOf(envelope(1));
  const ACK = `/v1/inbox/${ALICE}/${msgId}`;

  it("removes a blob once; the second ack is 404", async () => {
    await client.deposit(ALICE, sender, envelope(1));
    const res = await client.ack(ALICE, alice, msgId);
    expect(res.status).toBe(200);
    expect(await expectContract(res, "DELETE", ACK)).toEqual({ ok: true });
    expect((await page()).items).toEqual([]);
    await expectError(
      await client.ack(ALICE, alice, msgId),
      "DELETE",
      ACK,
      404,
      "SVC_BLOB_NOT_FOUND",
    );
    const metrics = await (await svc.app.request("/metrics")).text();
    expect(metrics).toContain("svc_inbox_ack_total 1");
  });

  it("answers 404 after expiry", async () => {
    await client.deposit(ALICE, sender, envelope(1), { expiresAt: 0 });
    clock.now = T0 + 60_000;
    await expectError(
      await client.ack(ALICE, alice, msgId),
      "DELETE",
      ACK,
      404,
      "SVC_BLOB_NOT_FOUND",
    );
  });

  it("refuses an ack signature replayed onto another msgId with 401", async () => {
    await client.deposit(ALICE, sender, envelope(1));
    await client.deposit(ALICE, sender, envelope(2));
    const forOther = client.signed(
      "DELETE",
      `/v1/inbox/${ALICE}/${msgIdOf(envelope(2))}`,
      {},
      alice,
    );
    const res = await client.send("DELETE", ACK, forOther);
    await expectError(res, "DELETE", ACK, 401, "SVC_BAD_SIGNATURE");
    expect((await page()).items).toHaveLength(2);
  });

  it("answers 401 unregistered, 409 stale and 400 for a malformed msgId", async () => {
    const unbound = await client.ack("nobody:1", alice, msgId);
    await expectError(unbound, "DELETE", `/v1/inbox/nobody:1/${msgId}`, 401, "SVC_WRONG_KEY");
    const staleBody = client.signed("DELETE", ACK, { signedAt: T0 - 300_001 }, alice);
    await expectError(
      await client.send("DELETE", ACK, staleBody),
      "DELETE",
      ACK,
      409,
      "SVC_STALE_SIGNATURE",
    );
    const upper = msgId.toUpperCase();
    const res = await client.ack(ALICE, alice, upper);
    await expectError(res, "DELETE", `/v1/inbox/${ALICE}/${upper}`, 400, "SVC_BAD_REQUEST");
  });
});
