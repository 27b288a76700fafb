import {
  encodeLeafV2,
  type KtProof,
  type KtProofBody,
  leafCommitment,
  type SignedTreeHead,
} from "@svc/kt-verify";
import { describe, expect, it } from "vitest";
import { proofShows, RecentProofs } from "./recent-proofs.js";

const key = (n: number) => new Uint8Array(32).fill(n);
const keys = (n: number) => ({ identitySigningKey: key(n), identityDHKey: key(n + 1) });
const sth = (treeSize: number, timestampMs = 1000) => ({ treeSize, timestampMs }) as SignedTreeHead;
const absence = (n: number) => ({ type: "absence", indexProof: { n } }) as unknown as KtProofBody;

/** An inclusion or tombstone body whose v2 leaf commits to `address` (and `identity`). */
function leafBody(
  type: "inclusion" | "tombstone",
  address: string,
  identity?: ReturnType<typeof keys> & { kemKeyHash?: Uint8Array },
): KtProofBody {
  const opening = key(9);
  const commitment = leafCommitment(opening, address, identity);
  const kind = type === "inclusion" ? "identity" : "tombstone";
  const leaf = encodeLeafV2({ kind, index: key(3), commitment, timestampMs: 5 });
  const kemKeyHash = identity?.kemKeyHash;
  return { type, leaf, opening, ...(kemKeyHash ? { kemKeyHash } : {}) } as unknown as KtProofBody;
}

describe("proofShows", () => {
  const proof = (body: KtProofBody): KtProof => ({ sth: sth(1), body });

  it("matches an identity leaf only to exactly its address and keys", () => {
    const alice = proof(leafBody("inclusion", "alice", keys(1)));
    expect(proofShows(alice, "alice", keys(1))).toBe(true);
    expect(proofShows(alice, "alice", keys(2))).toBe(false);
    expect(proofShows(alice, "alice", { ...keys(1), identityDHKey: key(7) })).toBe(false);
    expect(proofShows(alice, "alicf", keys(1))).toBe(false);
    expect(proofShows(alice, "alice", undefined)).toBe(false);
  });

  it("matches a leaf that commits a KEM key hash only to exactly that hash", () => {
    const withKem = { ...keys(1), kemKeyHash: key(20) };
    const dave = proof(leafBody("inclusion", "dave", withKem));
    expect(proofShows(dave, "dave", withKem)).toBe(true);
    expect(proofShows(dave, "dave", { ...keys(1), kemKeyHash: key(21) })).toBe(false);
    expect(proofShows(dave, "dave", keys(1))).toBe(false);
    // A body claiming a hash its leaf does not commit to shows nothing.
    const classic = leafBody("inclusion", "dave", keys(1));
    expect(
      proofShows(proof({ ...classic, kemKeyHash: key(20) } as KtProofBody), "dave", withKem),
    ).toBe(false);
    expect(proofShows(proof(classic), "dave", withKem)).toBe(false);
  });

  it("shows a tombstone or absence as not registered", () => {
    for (const body of [leafBody("tombstone", "bob"), absence(1)]) {
      expect(proofShows(proof(body), "bob", undefined)).toBe(true);
      expect(proofShows(proof(body), "bob", keys(1))).toBe(false);
    }
  });
});

describe("RecentProofs", () => {
  it("answers a kept proof while its head was read less than the lag ago", () => {
    const recent = new RecentProofs(10, 1000);
    recent.remember("a", { sth: sth(5), body: absence(1) }, 100);
    expect(recent.showing("a", undefined, 1099)).toEqual({ sth: sth(5), body: absence(1) });
    expect(recent.showing("a", undefined, 1100)).toBeUndefined();
    expect(recent.showing("b", undefined, 200)).toBeUndefined();
  });

  it("keeps answering a proof of the latest size under the latest head, read again since", () => {
    const recent = new RecentProofs(10, 1000);
    recent.remember("a", { sth: sth(5), body: absence(1) }, 100);
    const resigned = sth(5, 2000);
    recent.sawLatest(resigned, 1500);
    expect(recent.showing("a", undefined, 2400)).toEqual({ sth: resigned, body: absence(1) });
    expect(recent.showing("a", undefined, 2500)).toBeUndefined();
    // A larger size leaves the kept proof to its own read time.
    recent.sawLatest(sth(6), 2400);
    expect(recent.showing("a", undefined, 2450)).toBeUndefined();
  });

  it("ignores a head older than the one it knows, and says when the latest is aging", () => {
    const recent = new RecentProofs(10, 1000);
    expect(recent.latestAging(0)).toBe(true);
    recent.sawLatest(sth(6), 100);
    recent.sawLatest(sth(5), 900);
    expect(recent.latestAging(600)).toBe(false);
    expect(recent.latestAging(601)).toBe(true);
    recent.remember("a", { sth: sth(5), body: absence(1) }, 0);
    expect(recent.showing("a", undefined, 1050)).toBeUndefined();
  });

  it("answers a kept proof only when it shows the answer, remembering the keys it showed", () => {
    const recent = new RecentProofs(10, 1000);
    const proof = { sth: sth(5), body: leafBody("inclusion", "alice", keys(1)) };
    recent.remember("alice", proof, 100);
    expect(recent.showing("alice", undefined, 200)).toBeUndefined();
    expect(recent.showing("alice", keys(2), 200)).toBeUndefined();
    expect(recent.showing("alice", keys(1), 200)).toEqual(proof);
    // Found once, the same keys are matched by comparison; other keys still by the commitment.
    expect(recent.showing("alice", keys(1), 300)).toEqual(proof);
    expect(recent.showing("alice", { ...keys(1), identityDHKey: key(9) }, 300)).toBeUndefined();
    expect(recent.showing("alice", keys(1), 300)).toEqual(proof);
  });

  it("does not take a KEM key hash for the keys it showed without one, or the other way", () => {
    const recent = new RecentProofs(10, 1000);
    const withKem = { ...keys(1), kemKeyHash: key(20) };
    const proof = { sth: sth(5), body: leafBody("inclusion", "dave", withKem) };
    recent.remember("dave", proof, 100);
    expect(recent.showing("dave", withKem, 200)).toEqual(proof);
    expect(recent.showing("dave", keys(1), 300)).toBeUndefined();
    expect(recent.showing("dave", { ...keys(1), kemKeyHash: key(21) }, 300)).toBeUndefined();
    const classic = { sth: sth(5), body: leafBody("inclusion", "erin", keys(1)) };
    recent.remember("erin", classic, 100);
    expect(recent.showing("erin", keys(1), 200)).toEqual(classic);
    expect(recent.showing("erin", withKem, 300)).toBeUndefined();
  });

  it("says a kept proof is aging past three quarters of the lag once the log grew", () => {
    const recent = new RecentProofs(10, 1000);
    recent.remember("a", { sth: sth(5), body: absence(1) }, 100);
    expect(recent.aging("a", 2000)).toBe(true);
    expect(recent.aging("b", 2000)).toBe(false);
    // Its size read as the latest: served under that head, nothing to make again.
    recent.sawLatest(sth(5, 2000), 100);
    expect(recent.aging("a", 2000)).toBe(false);
    recent.sawLatest(sth(6), 800);
    expect(recent.aging("a", 851)).toBe(true);
    expect(recent.aging("a", 850)).toBe(false);
    recent.remember("a", { sth: sth(6), body: absence(1) }, 1000);
    expect(recent.aging("a", 2000)).toBe(false);
  });

  it("says when no kept body can be at the latest size", () => {
    const recent = new RecentProofs(10, 1000);
    expect(recent.outgrown("a")).toBe(true);
    recent.remember("a", { sth: sth(5), body: absence(1) }, 100);
    expect(recent.outgrown("a")).toBe(false);
    recent.sawLatest(sth(5), 100);
    expect(recent.outgrown("a")).toBe(false);
    recent.sawLatest(sth(6), 200);
    expect(recent.outgrown("a")).toBe(true);
  });

  it("with a lag of 0 answers nothing kept", () => {
    const recent = new RecentProofs(10, 0);
    recent.remember("a", { sth: sth(5), body: absence(1) }, 100);
    recent.sawLatest(sth(5), 100);
    expect(recent.showing("a", undefined, 100)).toBeUndefined();
    expect(() => new RecentProofs(10, -1)).toThrow(RangeError);
  });
});
