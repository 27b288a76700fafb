import type { KtProofBody } from "@svc/kt-verify";
import { describe, expect, it } from "vitest";
import { ProofCache } from "./proof-cache.js";

/** Bodies told apart by `n`; the cache never looks inside them. */
const body = (n: number) => ({ type: "absence", indexProof: { n } }) as unknown as KtProofBody;

describe("ProofCache", () => {
  it("answers only for the tree size a body was made at", () => {
    const cache = new ProofCache(10);
    cache.set("alice", 5, body(1));
    expect(cache.get("alice", 5)).toEqual(body(1));
    expect(cache.get("alice", 6)).toBeUndefined();
    cache.set("alice", 6, body(2));
    expect(cache.get("alice", 5)).toBeUndefined();
    expect(cache.get("alice", 6)).toEqual(body(2));
  });

  it("drops the least recently used address beyond its capacity", () => {
    const cache = new ProofCache(2);
    cache.set("a", 1, body(1));
    cache.set("b", 1, body(2));
    cache.get("a", 1);
    cache.set("c", 1, body(3));
    expect(cache.get("b", 1)).toBeUndefined();
    expect(cache.get("a", 1)).toEqual(body(1));
    expect(cache.get("c", 1)).toEqual(body(3));
  });

  it("keeps nothing at capacity 0", () => {
    const cache = new ProofCache(0);
    cache.set("a", 1, body(1));
    expect(cache.get("a", 1)).toBeUndefined();
  });
});
