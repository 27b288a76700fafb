import {
  ed25519Sign,
  encodeBase64,
  portableEd25519,
  x25519PublicKeyFromSeed,
} from "@svc/canonical";
import { signatureForSmallOrderKey, smallOrderKeys } from "@svc/canonical/testing";
import { createTestStorage } from "@svc/db/testing";
import { signedBodyMessage } from "@svc/protocol";
import {
  type Json,
  jsonRequest,
  oneTimePreKeys,
  range,
  registerBody,
  registerFields,
  seedOf,
  sign,
  testIdentity,
} from "@svc/test-client";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const NOW = 1_763_780_000_000;
const PATH = "/v1/keys/register";

async function setup(env: Record<string, string> = {}) {
  const svc = await createTestApp({ SVC_RATE_LIMIT: "off", ...env }, { now: () => NOW });
  const register = async (body: unknown, init: RequestInit = jsonRequest("POST", body)) => {
    const res = await svc.app.request(PATH, init);
    return { status: res.status, body: (await expectContract(res, "POST", PATH)) as Json };
  };
  const count = async (address: string) => {
    const res = await svc.app.request(`/v1/keys/count/${address}`);
    return ((await expectContract(res, "GET", `/v1/keys/count/${address}`)) as Json).count;
  };
  return { ...svc, register, count };
}

const alice = testIdentity("alice@example.com:1");

describe("POST /v1/keys/register", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  it("registers a new identity with its one-time prekeys", async () => {
    const { register, count } = await setup();
    expect(await register(registerBody(alice, NOW, [1, 2, 3]))).toEqual({
      status: 200,
      body: { ok: true },
    });
    expect(await count(alice.address)).toBe(3);
  });

  it("updates the signed prekey on a later register and appends prekeys", async () => {
    const { register, count, app } = await setup();
    await register(registerBody(alice, NOW, [1]));
    const spkSeed = seedOf("new-spk");
    const spk = x25519PublicKeyFromSeed(spkSeed);
    const fields = {
      ...registerFields(alice, NOW, [2]),
      signedPreKey: {
        keyId: 2,
        publicKey: encodeBase64(spk),
        signature: encodeBase64(ed25519Sign(spk, alice.seed)),
      },
    };
    expect((await register(sign("POST", PATH, fields, alice.seed))).status).toBe(200);
    expect(await count(alice.address)).toBe(2);
    const bundle = (await (await app.request(`/v1/keys/bundle/${alice.address}`)).json()) as Json;
    expect(bundle.signedPreKey).toEqual(fields.signedPreKey);
  });

  it("accepts signedAt exactly 300000 ms off and refuses 300001", async () => {
    const { register } = await setup();
    for (const signedAt of [NOW - 300_000, NOW + 300_000]) {
      expect((await register(registerBody(alice, signedAt))).status).toBe(200);
    }
    for (const signedAt of [NOW - 300_001, NOW + 300_001]) {
      expect(await register(registerBody(alice, signedAt))).toMatchObject({
        status: 401,
        body: { code: "SVC_STALE_SIGNATURE" },
      });
    }
  });

  it("refuses a tampered body and a signature replayed with another address", async () => {
    const { register } = await setup();
    const tampered = {
      ...registerBody(alice, NOW, [1]),
      oneTimePreKeys: oneTimePreKeys([1], "evil"),
    };
    expect(await register(tampered)).toMatchObject({
      status: 401,
      body: { code: "SVC_BAD_SIGNATURE" },
    });
    const replayed = { ...registerBody(alice, NOW), address: "mallory" };
    expect(await register(replayed)).toMatchObject({
      status: 401,
      body: { code: "SVC_BAD_SIGNATURE" },
    });
    const onOtherRoute = sign("POST", "/v1/keys/replenish", registerFields(alice, NOW), alice.seed);
    expect(await register(onOtherRoute)).toMatchObject({
      status: 401,
      body: { code: "SVC_BAD_SIGNATURE" },
    });
  });

  it("refuses a first register signed by a key other than identitySigningKey", async () => {
    const { register } = await setup();
    const body = sign("POST", PATH, registerFields(alice, NOW), seedOf("someone else"));
    expect(await register(body)).toMatchObject({
      status: 401,
      body: { code: "SVC_BAD_SIGNATURE" },
    });
  });

  it("refuses other identity keys for a registered address", async () => {
    const { register, count } = await setup();
    await register(registerBody(alice, NOW, [1]));
    const impostor = testIdentity(alice.address, "impostor");
    expect(await register(registerBody(impostor, NOW, [2]))).toMatchObject({
      status: 401,
      body: { code: "SVC_IDENTITY_MISMATCH" },
    });
    const otherDh = { ...registerFields(alice, NOW), identityDHKey: impostor.identityDHKey };
    expect(await register(sign("POST", PATH, otherDh, alice.seed))).toMatchObject({
      status: 401,
      body: { code: "SVC_IDENTITY_MISMATCH" },
    });
    expect(await count(alice.address)).toBe(1);
  });

  it("refuses a signed prekey not signed by the identity key over its raw bytes", async () => {
    const { register, count } = await setup();
    const bob = testIdentity("bob");
    const fields = { ...registerFields(alice, NOW, [1]), signedPreKey: { ...bob.signedPreKey } };
    expect(await register(sign("POST", PATH, fields, alice.seed))).toMatchObject({
      status: 400,
      body: { code: "SVC_INVALID_SIGNED_PREKEY" },
    });
    expect(await count(alice.address)).toBe(0);
  });

  it("normalizes the address with NFKC and refuses invalid ones", async () => {
    const { register, count } = await setup();
    const wide = testIdentity("ａｌｉｃｅ", "wide");
    expect((await register(registerBody(wide, NOW, [1]))).status).toBe(200);
    expect(await count("alice")).toBe(1);
    for (const address of ["a,b", "", "-x", "a b", "x".repeat(257)]) {
      expect(await register(registerBody(testIdentity(address, "bad"), NOW))).toMatchObject({
        status: 400,
        body: { code: "SVC_INVALID_ADDRESS" },
      });
    }
  });

  it("refuses keys that are not 32 bytes of strict base64", async () => {
    const { register } = await setup();
    for (const bad of [
      "AAAA",
      "not base64!",
      `${alice.identityDHKey.slice(0, -2)}==`,
      alice.identityDHKey.replace("=", ""),
    ]) {
      const body = sign(
        "POST",
        PATH,
        { ...registerFields(alice, NOW), identityDHKey: bad },
        alice.seed,
      );
      expect(await register(body)).toMatchObject({
        status: 400,
        body: { code: "SVC_INVALID_KEY" },
      });
    }
    const badOtk = {
      ...registerFields(alice, NOW),
      oneTimePreKeys: [{ keyId: 1, publicKey: "AA==" }],
    };
    expect(await register(sign("POST", PATH, badOtk, alice.seed))).toMatchObject({
      status: 400,
      body: { code: "SVC_INVALID_KEY" },
    });
  });

  it("refuses every identity key of small order with 400 SVC_INVALID_KEY", async () => {
    const { register, count } = await setup();
    for (const { key, canonical } of smallOrderKeys()) {
      const fields = { ...registerFields(alice, NOW, [1]), identitySigningKey: encodeBase64(key) };
      const message = signedBodyMessage("POST", PATH, fields);
      const signature = signatureForSmallOrderKey(key, message);
      expect(portableEd25519.verify(signature, message, key)).toBe(canonical);
      expect(await register({ ...fields, signature: encodeBase64(signature) })).toEqual({
        status: 400,
        body: {
          name: "BadRequest",
          code: "SVC_INVALID_KEY",
          message: "identitySigningKey is an Ed25519 point of small order",
        },
      });
    }
    expect(await count(alice.address)).toBe(0);
  });

  it("answers 413 past 256 KiB, with or without Content-Length", async () => {
    const { register } = await setup();
    const big = { ...registerBody(alice, NOW), padding: "x".repeat(270_000) };
    expect(await register(big)).toMatchObject({ status: 413, body: { code: "SVC_TOO_LARGE" } });
    const chunk = new TextEncoder().encode(" ".repeat(16_384));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 17) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const init = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit;
    expect(await register(undefined, init)).toMatchObject({
      status: 413,
      body: { code: "SVC_TOO_LARGE" },
    });
  });

  it("refuses malformed JSON, unknown members, reserved members and fractions", async () => {
    const { register } = await setup();
    expect(await register("{not json")).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST" },
    });
    expect(await register("[1]")).toMatchObject({ status: 400, body: { code: "SVC_BAD_REQUEST" } });
    const base = registerFields(alice, NOW, [1]);
    const variants: Json[] = [
      { ...base, extra: 1 },
      { ...base, "@path": "/x" },
      { ...base, signedPreKey: { ...alice.signedPreKey, extra: true } },
      { ...base, oneTimePreKeys: [{ ...oneTimePreKeys([1])[0], extra: 1 }] },
      { ...base, signedAt: NOW + 0.5 },
      { ...base, oneTimePreKeys: [{ ...oneTimePreKeys([1])[0], keyId: 1.5 }] },
      { ...base, oneTimePreKeys: [{ ...oneTimePreKeys([1])[0], keyId: -1 }] },
      { ...base, signedPreKey: { ...alice.signedPreKey, keyId: 2 ** 53 } },
      { ...base, address: 5 },
    ];
    for (const fields of variants) {
      const body = { ...fields, signature: registerBody(alice, NOW).signature };
      expect(await register(body)).toMatchObject({
        status: 400,
        body: { code: "SVC_BAD_REQUEST" },
      });
    }
    const { signature: _, ...unsigned } = registerBody(alice, NOW);
    expect(await register(unsigned)).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST" },
    });
    expect(await register(`{"signedAt":1e3}`)).toMatchObject({ status: 400 });
  });

  it("takes at most 100 one-time prekeys per request", async () => {
    const { register, count } = await setup();
    expect(await register(registerBody(alice, NOW, range(0, 101)))).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST" },
    });
    expect(await count(alice.address)).toBe(0);
    expect((await register(registerBody(alice, NOW, range(0, 100)))).status).toBe(200);
  });

  it("caps the queue at 1000 and rejects the whole request beyond", async () => {
    const { register, count } = await setup();
    for (let from = 0; from < 1000; from += 100) {
      expect((await register(registerBody(alice, NOW, range(from, from + 100)))).status).toBe(200);
    }
    expect(await register(registerBody(alice, NOW, [5000, 1, 2]))).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST" },
    });
    expect(await count(alice.address)).toBe(1000);
  });

  it("skips re-uploaded prekeys and refuses a keyId with another public key", async () => {
    const { register, count } = await setup();
    await register(registerBody(alice, NOW, [1, 2]));
    expect((await register(registerBody(alice, NOW, [1, 2, 3]))).status).toBe(200);
    expect(await count(alice.address)).toBe(3);
    const conflicting = {
      ...registerFields(alice, NOW),
      oneTimePreKeys: [...oneTimePreKeys([4]), ...oneTimePreKeys([2], "other")],
    };
    expect(await register(sign("POST", PATH, conflicting, alice.seed))).toMatchObject({
      status: 400,
      body: { code: "SVC_BAD_REQUEST" },
    });
    expect(await count(alice.address)).toBe(3);
  });
});
