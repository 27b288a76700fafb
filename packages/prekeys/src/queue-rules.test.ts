import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PrekeyError } from "./errors.js";
import { MAX_PREKEYS_PER_REQUEST, MAX_QUEUED_PREKEYS, planAppend } from "./queue-rules.js";
import type { OneTimePreKey } from "./types.js";

const key = (keyId: number, fill = keyId & 0xff): OneTimePreKey => ({
  keyId,
  publicKey: new Uint8Array(32).fill(fill),
});
const keys = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => key(from + i));

describe("planAppend", () => {
  it("keeps request order and skips entries equal to queued or earlier ones", () => {
    expect(planAppend([key(5)], [key(9), key(5), key(1), key(9)]).map((k) => k.keyId)).toEqual([
      9, 1,
    ]);
  });

  it("rejects the same keyId with another public key, queued or in the request", () => {
    expect(() => planAppend([key(5)], [key(5, 77)])).toThrow(PrekeyError);
    expect(() => planAppend([], [key(5), key(5, 77)])).toThrow(/already queued/);
  });

  it("allows 100 entries per request, not 101", () => {
    expect(planAppend([], keys(0, MAX_PREKEYS_PER_REQUEST))).toHaveLength(100);
    expect(() => planAppend([], keys(0, MAX_PREKEYS_PER_REQUEST + 1))).toThrow(/at most 100/);
  });

  it("allows up to 1000 queued, counting only what is new", () => {
    const queued = keys(0, 950);
    expect(planAppend(queued, keys(900, 1000))).toHaveLength(50);
    expect(() => planAppend(queued, keys(950, 1001))).toThrow(/at most 1000/);
    expect(planAppend(keys(0, MAX_QUEUED_PREKEYS), keys(0, 100))).toEqual([]);
  });

  it("never lets the queue pass the cap or hold a keyId twice", () => {
    const entries = fc.array(
      fc.record({ keyId: fc.integer({ min: 0, max: 300 }), fill: fc.integer({ min: 0, max: 1 }) }),
      { maxLength: 120 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), entries, (queuedCount, raw) => {
        const queued = keys(1000, 1000 + queuedCount);
        const request = raw.map(({ keyId, fill }) => key(keyId, fill));
        try {
          const fresh = planAppend(queued, request);
          const ids = [...queued, ...fresh].map((k) => k.keyId);
          expect(new Set(ids).size).toBe(ids.length);
          expect(ids.length).toBeLessThanOrEqual(MAX_QUEUED_PREKEYS);
        } catch (error) {
          expect(error).toBeInstanceOf(PrekeyError);
          expect((error as PrekeyError).code).toBe("SVC_BAD_REQUEST");
        }
      }),
    );
  });
});
