import { encodeBase64 } from "@svc/canonical";
import { createTestStorage } from "@svc/db/testing";
import {
  type Json,
  jsonRequest,
  kemPreKey,
  kemPreKeys,
  oneTimePreKeys,
  registerBody,
  registerFields,
  replenishBody,
  sign,
  testIdentity,
} from "@svc/test-client";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestApp } from "../../../test-support/app.js";
import { expectContract } from "../../../test-support/contract.js";
import { warmTestDatabase } from "../../../test-support/warm-database.js";

const NOW = 1_763_780_000_000;
const alice = testIdentity("alice");

/** Valid bodies with one member replaced by arbitrary JSON, or arbitrary JSON altogether. */
function bodies(valid: Json, path: string) {
  const mutated = fc
    .tuple(fc.constantFrom(...Object.keys(valid), "extra", "@x"), fc.jsonValue(), fc.boolean())
    .map(([member, value, resign]) => {
      const { signature: _, ...fields } = valid;
      const changed = { ...fields, [member]: value };
      if (!resign) return { ...changed, signature: valid.signature };
      try {
        return sign("POST", path, changed, alice.seed);
      } catch {
        return changed; // reserved or non-canonical members cannot be signed at all
      }
    });
  return fc.oneof(mutated, fc.jsonValue(), fc.string());
}

describe("keys body fuzzing", () => {
  beforeAll(() => warmTestDatabase(createTestStorage));

  const kem = { kemLastResortPreKey: kemPreKey(alice, 9), kemPreKeys: kemPreKeys(alice, [1, 2]) };
  for (const [path, valid] of [
    ["/v1/keys/register", registerBody(alice, NOW, [1, 2])],
    ["/v1/keys/replenish", replenishBody(alice, NOW, oneTimePreKeys([3]))],
    [
      "/v1/keys/register",
      sign("POST", "/v1/keys/register", { ...registerFields(alice, NOW, [1]), ...kem }, alice.seed),
    ],
    [
      "/v1/keys/replenish",
      sign(
        "POST",
        "/v1/keys/replenish",
        { address: alice.address, ...kem, signedAt: NOW },
        alice.seed,
      ),
    ],
  ] as const) {
    const what = "kemPreKeys" in valid ? " carrying KEM prekeys" : "";
    it(`never answers ${path}${what} with a 5xx`, async () => {
      const { app } = await createTestApp({ SVC_RATE_LIMIT: "off" }, { now: () => NOW });
      await app.request("/v1/keys/register", jsonRequest("POST", registerBody(alice, NOW)));
      await fc.assert(
        fc.asyncProperty(bodies(valid, path), async (body) => {
          const text = typeof body === "string" ? body : JSON.stringify(body);
          const res = await app.request(path, jsonRequest("POST", text ?? "null"));
          expect(res.status).toBeLessThan(500);
          await expectContract(res, "POST", path);
        }),
        { numRuns: 150 },
      );
    }, 60_000);
  }

  it("answers signed KEM entries of any shape 200 or 400, never a 5xx", async () => {
    const { app } = await createTestApp({ SVC_RATE_LIMIT: "off" }, { now: () => NOW });
    await app.request("/v1/keys/register", jsonRequest("POST", registerBody(alice, NOW)));
    const good = kemPreKey(alice, 1);
    const bytes = (lengths: number[]) =>
      fc.oneof(
        fc.constantFrom(...lengths).map((n) => encodeBase64(new Uint8Array(n).fill(1))),
        fc.uint8Array({ maxLength: 1600 }).map(encodeBase64),
        fc.string(),
      );
    const entry = fc.record(
      {
        keyId: fc.oneof(fc.nat(), fc.integer(), fc.jsonValue()),
        publicKey: fc.oneof(fc.constant(good.publicKey), bytes([1567, 1568, 1569])),
        signature: fc.oneof(fc.constant(good.signature), bytes([63, 64, 65])),
        lastResort: fc.boolean(),
      },
      { requiredKeys: [] },
    );
    const members = fc.record(
      {
        kemLastResortPreKey: fc.oneof(entry, fc.jsonValue()),
        kemPreKeys: fc.oneof(fc.array(entry, { maxLength: 3 }), fc.jsonValue()),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(members, fc.boolean(), async (kemMembers, replenish) => {
        const path = replenish ? "/v1/keys/replenish" : "/v1/keys/register";
        const fields = replenish
          ? { address: alice.address, signedAt: NOW }
          : registerFields(alice, NOW);
        let body: Json;
        try {
          body = sign("POST", path, { ...fields, ...kemMembers }, alice.seed);
        } catch {
          return; // numbers that are not safe integers cannot be signed at all
        }
        const res = await app.request(path, jsonRequest("POST", body));
        expect([200, 400]).toContain(res.status);
        await expectContract(res, "POST", path);
      }),
      { numRuns: 150 },
    );
  }, 60_000);

  it("never answers a delete with a 5xx", async () => {
    const { app } = await createTestApp({ SVC_RATE_LIMIT: "off" }, { now: () => NOW });
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue(),
        // "." and ".." are dot segments: URL parsing removes them before any route sees them.
        fc.string({ minLength: 1, maxLength: 40 }).filter((a) => a !== "." && a !== ".."),
        async (body, address) => {
          const path = `/v1/keys/${encodeURIComponent(address)}`;
          const res = await app.request(
            path,
            jsonRequest("DELETE", JSON.stringify(body) ?? "null"),
          );
          expect(res.status).toBeLessThan(500);
          await expectContract(res, "DELETE", path);
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);
});
