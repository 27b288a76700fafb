import { encodeBase64, portableEd25519 } from "@svc/canonical";
import { signatureForSmallOrderKey, smallOrderKeys } from "@svc/canonical/testing";
import { InboxStore } from "@svc/inbox";
import { signBody, signedBodyMessage } from "@svc/protocol";
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
const PATH = depositPath(ALICE);
const alice = party("alice");
const sender = party("sender");
const other = party("other-sender");
const DAY = 86_400_000;

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
});

async function expectError(res: Response, status: number, code: string, path = PATH) {
  expect(res.status).toBe(status);
  expect(await expectContract(res, "POST", path)).toMatchObject({ code });
}

/** A deposit body whose signature is by `other` although it names `sender`'s key. */
function badlySigned(address: string, bytes: Uint8Array, fields = {}) {
  const body = client.depositBody(address, sender, bytes, fields);
  return { ...body, signature: signBody("POST", depositPath(address), body, other.seed) };
}

describe("POST /v1/inbox/{address}", () => {
  it("queues a blob, then answers repeats idempotently", async () => {
    const first = await client.deposit(ALICE, sender, envelope(1));
    expect(first.status).toBe(200);
    expect(await expectContract(first, "POST", PATH)).toEqual({
      idempotent: false,
      expiresAt: T0 + 3_600_000,
    });
    const repeat = await client.deposit(ALICE, sender, envelope(1), { signedAt: T0 + 5 });
    expect(await expectContract(repeat, "POST", PATH)).toEqual({ idempotent: true });

    const metrics = await (await svc.app.request("/metrics")).text();
    expect(metrics).toContain('svc_inbox_put_total{outcome="stored"} 1');
    expect(metrics).toContain('svc_inbox_put_total{outcome="idempotent"} 1');
  });

  it("times the stages of each deposit the store answered, and only the read of a refused one", async () => {
    await client.deposit(ALICE, sender, envelope(1));
    await client.deposit(ALICE, sender, envelope(1), { signedAt: T0 + 5 });
    expect((await client.send("POST", PATH, badlySigned(ALICE, envelope(2)))).status).toBe(401);
    const metrics = await (await svc.app.request("/metrics")).text();
    const count = (stage: string) =>
      metrics.match(
        new RegExp(`^svc_inbox_deposit_stage_seconds_count\\{stage="${stage}"\\} (\\d+)$`, "m"),
      )?.[1];
    expect([count("read"), count("checks"), count("store")]).toEqual(["3", "2", "2"]);
    expect(metrics).toMatch(
      /^svc_inbox_deposit_stage_seconds_bucket\{le="0\.001",stage="store"\} \d+$/m,
    );
  });

  it("refuses a repeat of a queued msgId signed by another sender key with 401", async () => {
    await client.deposit(ALICE, sender, envelope(1));
    await expectError(await client.deposit(ALICE, other, envelope(1)), 401, "SVC_WRONG_KEY");
  });

  it("clamps expiresAt to [now + 60 s, now + 30 days]", async () => {
    const expiries = [];
    for (const [n, expiresAt] of [
      [1, 0],
      [2, T0 + 1000 * DAY],
      [3, T0 + DAY],
    ] as const) {
      const res = await client.deposit(ALICE, sender, envelope(n), { expiresAt });
      expiries.push(((await expectContract(res, "POST", PATH)) as { expiresAt: number }).expiresAt);
    }
    expect(expiries).toEqual([T0 + 60_000, T0 + 30 * DAY, T0 + DAY]);
  });

  it("hands out strictly increasing receivedAt within one millisecond", async () => {
    for (let n = 0; n < 3; n++) await client.deposit(ALICE, sender, envelope(n));
    const res = await client.fetch(ALICE, alice);
    const page = (await expectContract(res, "POST", `${PATH}/fetch`)) as {
      items: Array<{ receivedAt: number }>;
    };
    expect(page.items.map((item) => item.receivedAt)).toEqual([T0, T0 + 1, T0 + 2]);
  });

  it("answers 429 with Retry-After at the quota, but 200 to a repeat", async () => {
    await client.deposit(ALICE, sender, envelope(1), { expiresAt: T0 + 90_000 });
    await client.deposit(ALICE, sender, envelope(2));
    await client.deposit(ALICE, sender, envelope(3));
    clock.now = T0 + 400;
    const full = await client.deposit(ALICE, sender, envelope(4));
    expect(full.headers.get("retry-after")).toBe("90");
    await expectError(full, 429, "SVC_QUOTA_EXCEEDED");
    const repeat = await client.deposit(ALICE, sender, envelope(2));
    expect(await expectContract(repeat, "POST", PATH)).toEqual({ idempotent: true });

    const metrics = await (await svc.app.request("/metrics")).text();
    expect(metrics).toContain('svc_inbox_put_total{outcome="rejected"} 1');
  });

  it("names the sender by the signed `from`, else by key (D6)", async () => {
    await client.deposit(ALICE, sender, envelope(1), { from: "bob@example.com:2" });
    await client.deposit(ALICE, sender, envelope(2));
    const store = new InboxStore({
      db: svc.services.storage.db,
      now: () => clock.now,
      quota: 3,
      minTtlMs: 0,
      maxTtlMs: DAY,
    });
    const envelopes = await store.envelopesSince(ALICE, 0, 10);
    expect(envelopes.map((e) => e.from)).toEqual([
      "bob@example.com:2",
      `key:${Buffer.from(sender.publicKey, "base64").toString("base64url")}`,
    ]);
    await expectError(
      await client.deposit(ALICE, sender, envelope(3), { from: "bad,from" }),
      400,
      "SVC_INVALID_ADDRESS",
    );
  });

  it("refuses a deposit signature replayed against another address", async () => {
    await client.register("bob:1", party("bob"));
    const forBob = client.depositBody("bob:1", sender, envelope(1));
    await expectError(await client.send("POST", PATH, forBob), 401, "SVC_BAD_SIGNATURE");
  });

  it("answers malformed members with 400", async () => {
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ ciphertext: "AgE" }, "SVC_BAD_REQUEST"],
      [{ senderPublicKey: encodeBase64(new Uint8Array(31)) }, "SVC_INVALID_KEY"],
      [{ msgId: "ABC" }, "SVC_BAD_REQUEST"],
      [{ expiresAt: -1 }, "SVC_BAD_REQUEST"],
      [{ expiresAt: "1" }, "SVC_BAD_REQUEST"],
      [{ extra: true }, "SVC_BAD_REQUEST"],
    ];
    for (const [fields, code] of bad) {
      const body = { ...client.depositBody(ALICE, sender, envelope(1)), ...fields };
      await expectError(await client.send("POST", PATH, body), 400, code);
    }
    const invalidAddress = await client.deposit("-x", sender, envelope(1));
    await expectError(invalidAddress, 400, "SVC_INVALID_ADDRESS", depositPath("-x"));
  });
});

describe("POST /v1/inbox/{address}: small-order sender keys", () => {
  it("refuses every one with 400 SVC_INVALID_KEY, though its signature verifies", async () => {
    for (const { key, canonical } of smallOrderKeys()) {
      const { signature: _, ...fields } = {
        ...client.depositBody(ALICE, sender, envelope(1)),
        senderPublicKey: encodeBase64(key),
      };
      const message = signedBodyMessage("POST", PATH, fields);
      const signature = signatureForSmallOrderKey(key, message);
      expect(portableEd25519.verify(signature, message, key)).toBe(canonical);
      const res = await client.send("POST", PATH, {
        ...fields,
        signature: encodeBase64(signature),
      });
      expect(res.status).toBe(400);
      expect(await expectContract(res, "POST", PATH)).toMatchObject({
        code: "SVC_INVALID_KEY",
        message: "senderPublicKey is an Ed25519 point of small order",
      });
    }
  });
});

describe("POST /v1/inbox/{address}: D6 order of checks", () => {
  it("judges size first: 413 from Content-Length, while streaming, and by decoded length", async () => {
    const huge = badlySigned("nobody:1", envelope(1, 12_000));
    const hugeAnswer = await client.send("POST", depositPath("nobody:1"), huge);
    expect(hugeAnswer.status).toBe(413);
    expect(await hugeAnswer.json()).toMatchObject({
      code: "SVC_TOO_LARGE",
      message:
        "request body exceeds the 9558-byte limit (a ciphertext of at most SVC_INBOX_MAX_BLOB_BYTES = 1024 bytes in base64, and the other members)",
    });

    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify(huge)));
        controller.close();
      },
    });
    const streamed = await svc.app.request(PATH, {
      method: "POST",
      body: stream,
      headers: { "content-type": "application/json" },
      duplex: "half",
    } as RequestInit);
    await expectError(streamed, 413, "SVC_TOO_LARGE");

    const overBlob = badlySigned(ALICE, envelope(1, 1025), { extra: 1 });
    const overBlobAnswer = await client.send("POST", PATH, overBlob);
    expect(overBlobAnswer.status).toBe(413);
    expect(await overBlobAnswer.json()).toMatchObject({
      code: "SVC_TOO_LARGE",
      message: "ciphertext exceeds the 1024-byte limit (SVC_INBOX_MAX_BLOB_BYTES)",
    });
    const atBlob = client.depositBody(ALICE, sender, envelope(1, 1024));
    expect((await client.send("POST", PATH, atBlob)).status).toBe(200);
  });

  it("then schema: a bad body to an unregistered address is 400", async () => {
    const body = { ...client.depositBody("nobody:1", sender, envelope(1)), msgId: 7 };
    const res = await client.send("POST", depositPath("nobody:1"), body);
    await expectError(res, 400, "SVC_BAD_REQUEST", depositPath("nobody:1"));
  });

  it("then registration: unregistered with a bad signature is 404", async () => {
    const res = await client.send(
      "POST",
      depositPath("nobody:1"),
      badlySigned("nobody:1", envelope(1)),
    );
    await expectError(res, 404, "SVC_NOT_REGISTERED", depositPath("nobody:1"));

    const valid = await client.deposit("nobody:1", sender, envelope(1));
    await expectError(valid, 404, "SVC_NOT_REGISTERED", depositPath("nobody:1"));
  });

  it("then signature: bad signature and stale is 401", async () => {
    const res = await client.send("POST", PATH, badlySigned(ALICE, envelope(1), { signedAt: 0 }));
    await expectError(res, 401, "SVC_BAD_SIGNATURE");
  });

  it("then freshness: stale with a msgId mismatch is 409 SVC_STALE_SIGNATURE", async () => {
    const fields = { signedAt: T0 - 300_001, msgId: msgIdOf(envelope(2)) };
    const res = await client.deposit(ALICE, sender, envelope(1), fields);
    await expectError(res, 409, "SVC_STALE_SIGNATURE");
  });

  it("then msgId: a mismatch with a wrong leading byte is 409 SVC_MSGID_MISMATCH", async () => {
    const notEnvelope = Uint8Array.of(0x03, 1, 2);
    const res = await client.deposit(ALICE, sender, notEnvelope, { msgId: msgIdOf(envelope(2)) });
    await expectError(res, 409, "SVC_MSGID_MISMATCH");
  });

  it("then the leading byte: 0x02 required (400) even when the quota is full", async () => {
    for (let n = 0; n < 3; n++) await client.deposit(ALICE, sender, envelope(n));
    await expectError(
      await client.deposit(ALICE, sender, Uint8Array.of(0x03, 1)),
      400,
      "SVC_BAD_REQUEST",
    );
    await expectError(
      await client.deposit(ALICE, sender, new Uint8Array(0)),
      400,
      "SVC_BAD_REQUEST",
    );
    await expectError(await client.deposit(ALICE, sender, envelope(9)), 429, "SVC_QUOTA_EXCEEDED");
  });
});
