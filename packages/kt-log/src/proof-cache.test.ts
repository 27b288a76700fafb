import type { KtProofBody, SignedTreeHead } from "@svc/kt-verify";
import { describe, expect, it } from "vitest";
import { ProofCache } from "./proof-cache.js";

/** Bodies told apart by `n`; the cache never looks inside them. */
const body = (n: number) => ({ type: "absence", indexProof: { n } }) as unknown as KtProofBody;
const sth = (treeSize: number) => ({ treeSize }) as SignedTreeHead;

describe("ProofCache", () => {
  it("keeps each address's latest proof with its head and read time", () => {
    const cache = new ProofCache(10);
    cache.set("alice", sth(5), body(1), 100);
    expect(cache.get("alice")).toEqual({ proof: { sth: sth(5), body: body(1) }, readAt: 100 });
    expect(cache.bodyAt("alice", 5)).toEqual(body(1));
    expect(cache.bodyAt("alice", 6)).toBeUndefined();
    cache.set("alice", sth(6), body(2), 200);
    expect(cache.bodyAt("alice", 5)).toBeUndefined();
    expect(cache.bodyAt("alice", 6)).toEqual(body(2));
  });

  it("drops the least recently used address beyond its capacity", () => {
    const cache = new ProofCache(2);
    cache.set("a", sth(1), body(1), 0);
    cache.set("b", sth(1), body(2), 0);
    cache.get("a");
    cache.set("c", sth(1), body(3), 0);
    expect(cache.get("b")).toBeUndefined();
    expect(cache.bodyAt("a", 1)).toEqual(body(1));
    expect(cache.bodyAt("c", 1)).toEqual(body(3));
  });

  it("keeps nothing at capacity 0", () => {
    const cache = new ProofCache(0);
    cache.set("a", sth(1), body(1), 0);
    expect(cache.get("a")).toBeUndefined();
  });
});
