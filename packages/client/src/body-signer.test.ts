import { decodeBase64 } from "@svc/canonical";
import { signedBody } from "@svc/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import spec from "../../canonical/src/fixtures/spec-vectors.json" with { type: "json" };
import { createBodySigner } from "./body-signer.js";

describe("createBodySigner", () => {
  it("reproduces the spec's signed register body", async () => {
    const { method, path, body } = spec.signedBodies.register;
    const { signature, ...fields } = body;
    const seed = decodeBase64(spec.keys.alice.seed, 32);
    expect(await createBodySigner()(method, path, fields, seed)).toEqual(body);
    expect(signature).toBe(body.signature);
  });

  it("signs exactly as @svc/protocol's signedBody does, for any seed and fields", async () => {
    const sign = createBodySigner();
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.string(),
        async (seed, text) => {
          const fields = { text, signedAt: 1_763_780_000_000 };
          expect(await sign("POST", "/v1/x", fields, seed)).toEqual(
            signedBody("POST", "/v1/x", fields, seed),
          );
        },
      ),
      { numRuns: 30 },
    );
  });
});
