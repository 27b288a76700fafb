import { encodeBase64, portableEd25519 } from "@svc/canonical";
import { signatureForSmallOrderKey, smallOrderKeys } from "@svc/canonical/testing";
import { signedBodyMessage } from "@svc/protocol";
import { envelope, InboxClient, inProcess, party, T0 } from "@svc/test-client";
import { beforeEach, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";

const ALICE = "alice@example.com:1";
const alice = party("alice");
const mallory = party("mallory");
const sender = party("sender");

let client: InboxClient;
beforeEach(async () => {
  const svc = await createTestApp({}, { now: () => T0 });
  client = new InboxClient(inProcess(svc.app));
});

const PATH = "/v1/inbox/register";

describe("POST /v1/inbox/register", () => {
  it("binds an address and answers {ok: true} again for the same key", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await client.register(ALICE, alice);
      expect(res.status).toBe(200);
      expect(await expectContract(res, "POST", PATH)).toEqual({ ok: true });
    }
  });

  it("refuses another key for a bound address with 401 SVC_WRONG_KEY", async () => {
    await client.register(ALICE, alice);
    const res = await client.register(ALICE, mallory);
    expect(res.status).toBe(401);
    expect(await expectContract(res, "POST", PATH)).toMatchObject({ code: "SVC_WRONG_KEY" });
  });

  it("binds the NFKC form of the address", async () => {
    expect((await client.register("ａlice:1", alice)).status).toBe(200);
    expect((await client.register("alice:1", mallory)).status).toBe(401);
  });

  it("answers a signature by another key with 401 SVC_BAD_SIGNATURE", async () => {
    const body = client.signed(
      "POST",
      PATH,
      { address: ALICE, signingPublicKey: alice.publicKey },
      mallory,
    );
    const res = await client.send("POST", PATH, body);
    expect(res.status).toBe(401);
    expect(await expectContract(res, "POST", PATH)).toMatchObject({ code: "SVC_BAD_SIGNATURE" });
  });

  it("answers a stale signedAt with 409 SVC_STALE_SIGNATURE, at the window's edge too", async () => {
    const stale = await client.register(ALICE, alice, { signedAt: T0 - 300_001 });
    expect(stale.status).toBe(409);
    expect(await expectContract(stale, "POST", PATH)).toMatchObject({
      code: "SVC_STALE_SIGNATURE",
    });
    expect((await client.register(ALICE, alice, { signedAt: T0 + 300_000 })).status).toBe(200);
  });

  it("answers bad bodies with 400 naming the problem", async () => {
    const fields = { address: ALICE, signingPublicKey: alice.publicKey };
    const cases: Array<[unknown, string]> = [
      ["not json", "SVC_BAD_REQUEST"],
      [[], "SVC_BAD_REQUEST"],
      [client.signed("POST", PATH, { address: ALICE }, alice), "SVC_BAD_REQUEST"],
      [client.signed("POST", PATH, { ...fields, extra: 1 }, alice), "SVC_BAD_REQUEST"],
      [{ ...client.signed("POST", PATH, fields, alice), "@path": "/x" }, "SVC_BAD_REQUEST"],
      [{ ...client.signed("POST", PATH, fields, alice), signedAt: T0 + 0.5 }, "SVC_BAD_REQUEST"],
      [
        client.signed("POST", PATH, { ...fields, address: "bad,addr" }, alice),
        "SVC_INVALID_ADDRESS",
      ],
      [
        client.signed("POST", PATH, { ...fields, signingPublicKey: "AAAA" }, alice),
        "SVC_INVALID_KEY",
      ],
    ];
    for (const [body, code] of cases) {
      const res = await client.send("POST", PATH, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await expectContract(res, "POST", PATH)).toMatchObject({ code });
    }
  });

  it("refuses every key of small order with 400 SVC_INVALID_KEY, though its signature verifies", async () => {
    for (const { key, canonical } of smallOrderKeys()) {
      const fields = { address: ALICE, signingPublicKey: encodeBase64(key), signedAt: T0 };
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
        message: "signingPublicKey is an Ed25519 point of small order",
      });
    }
  });

  it("answers a body over 16 KiB with 413 before reading it as JSON", async () => {
    const res = await client.send("POST", PATH, `{"address":"${"a".repeat(17_000)}"`);
    expect(res.status).toBe(413);
    expect(await expectContract(res, "POST", PATH)).toMatchObject({ code: "SVC_TOO_LARGE" });
  });
});

describe("DELETE /v1/inbox/register/{address}", () => {
  const path = `/v1/inbox/register/${ALICE}`;

  it("unbinds the address and drops its queued blobs", async () => {
    await client.register(ALICE, alice);
    expect((await client.deposit(ALICE, sender, envelope(1))).status).toBe(200);
    const res = await client.unregister(ALICE, alice);
    expect(res.status).toBe(200);
    expect(await expectContract(res, "DELETE", path)).toEqual({ ok: true });

    expect((await client.register(ALICE, mallory)).status).toBe(200);
    const fetched = await client.fetch(ALICE, mallory);
    expect(await expectContract(fetched, "POST", `/v1/inbox/${ALICE}/fetch`)).toEqual({
      items: [],
      nextCursor: null,
    });
  });

  it("answers 401 for an unregistered address, another key or a replayed signature", async () => {
    const unbound = await client.unregister(ALICE, alice);
    expect(unbound.status).toBe(401);
    expect(await expectContract(unbound, "DELETE", path)).toMatchObject({ code: "SVC_WRONG_KEY" });

    await client.register(ALICE, alice);
    const wrong = await client.unregister(ALICE, mallory);
    expect(wrong.status).toBe(401);
    expect(await expectContract(wrong, "DELETE", path)).toMatchObject({
      code: "SVC_BAD_SIGNATURE",
    });

    await client.register("bob:1", alice);
    const forBob = client.signed("DELETE", "/v1/inbox/register/bob:1", {}, alice);
    const replayed = await client.send("DELETE", path, forBob);
    expect(replayed.status).toBe(401);
    expect(await expectContract(replayed, "DELETE", path)).toMatchObject({
      code: "SVC_BAD_SIGNATURE",
    });
  });

  it("answers a stale signature with 409 and a bad address or body with 400", async () => {
    await client.register(ALICE, alice);
    const stale = await client.send(
      "DELETE",
      path,
      client.signed("DELETE", path, { signedAt: T0 - 400_000 }, alice),
    );
    expect(stale.status).toBe(409);
    expect(await expectContract(stale, "DELETE", path)).toMatchObject({
      code: "SVC_STALE_SIGNATURE",
    });
    const badAddress = await client.unregister("-bad", alice);
    expect(badAddress.status).toBe(400);
    expect(await expectContract(badAddress, "DELETE", "/v1/inbox/register/-bad")).toMatchObject({
      code: "SVC_INVALID_ADDRESS",
    });
    const extra = await client.send(
      "DELETE",
      path,
      client.signed("DELETE", path, { limit: 1 }, alice),
    );
    expect(extra.status).toBe(400);
    expect(await expectContract(extra, "DELETE", path)).toMatchObject({ code: "SVC_BAD_REQUEST" });
  });
});
