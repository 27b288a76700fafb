import { createTestStorage } from "@svc/db/testing";
import {
  type Json,
  jsonRequest,
  oneTimePreKeys,
  registerBody,
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

  for (const [path, valid] of [
    ["/v1/keys/register", registerBody(alice, NOW, [1, 2])],
    ["/v1/keys/replenish", replenishBody(alice, NOW, oneTimePreKeys([3]))],
  ] as const) {
    it(`never answers ${path} with a 5xx`, async () => {
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
