import { encodeBase64 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import { memoryStore } from "./store.js";
import { FakeLog, key32 } from "./test-support/fake-log.js";
import { KtVerifier } from "./verifier.js";

const NOW = 1_763_780_000_000;

const keysOf = (n: number) => ({ identitySigningKey: key32(n), identityDHKey: key32(n + 1) });

function bundleOf(log: FakeLog, address: string, n: number): Record<string, unknown> {
  return {
    identitySigningKey: encodeBase64(key32(n)),
    identityDHKey: encodeBase64(key32(n + 1)),
    signedPreKey: { keyId: 1, publicKey: encodeBase64(key32(9)), signature: "" },
    ktProof: log.proofJson(address),
  };
}

async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
  } catch (error) {
    if (error instanceof KtVerifyError) return error.code;
    throw error;
  }
  return undefined;
}

describe("KtVerifier with a VRF key (format 3)", () => {
  it("verifies bundles, tombstones and absences of a private index", async () => {
    const log = new FakeLog(undefined, () => NOW);
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: NOW });
    log.appendV2({ kind: "identity", address: "bob", ...keysOf(3), timestampMs: NOW });
    log.appendV2({ kind: "tombstone", address: "bob", timestampMs: NOW });
    const verifier = new KtVerifier({
      logPublicKey: log.publicKey,
      vrfPublicKey: log.vrfPublicKey,
      client: log.client(),
      now: () => NOW,
    });
    expect(verifier.vrfPublicKey).toEqual(log.vrfPublicKey);
    const alice = await verifier.verifyBundle("alice", bundleOf(log, "alice", 1));
    expect(alice).toMatchObject({ format: 3, type: "inclusion", leafIndex: 0 });
    expect(await verifier.verifyNotFound("bob", { ktProof: log.proofJson("bob") })).toMatchObject({
      format: 3,
      type: "tombstone",
      leafIndex: 2,
    });
    expect(
      await verifier.verifyNotFound("carol", { ktProof: log.proofJson("carol") }),
    ).toMatchObject({ format: 3, type: "absence" });
    expect(await codeOf(verifier.verifyBundle("alice", bundleOf(log, "alice", 3)))).toBe(
      "KT_KEY_MISMATCH",
    );
  });

  it("refuses a format-2 proof from the same log and keeps its trusted STH", async () => {
    const log = new FakeLog(undefined, () => NOW);
    log.append({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: NOW });
    const store = memoryStore();
    const verifier = new KtVerifier({
      logPublicKey: log.publicKey,
      vrfPublicKey: log.vrfPublicKey,
      client: log.client(),
      store,
      now: () => NOW,
    });
    expect(await codeOf(verifier.verifyBundle("alice", bundleOf(log, "alice", 1)))).toBe(
      "KT_MALFORMED",
    );
    expect(await verifier.trustedSth()).toBeUndefined();
  });

  it("without a VRF key, refuses format 3 (KT_MALFORMED) and keeps format 2", async () => {
    const log = new FakeLog(undefined, () => NOW);
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: NOW });
    const verifier = new KtVerifier({
      logPublicKey: log.publicKey,
      client: log.client(),
      now: () => NOW,
    });
    expect(await codeOf(verifier.verifyBundle("alice", bundleOf(log, "alice", 1)))).toBe(
      "KT_MALFORMED",
    );
    const legacy = new FakeLog(undefined, () => NOW);
    legacy.append({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: NOW });
    expect(await verifier.verifyBundle("alice", bundleOf(legacy, "alice", 1))).toMatchObject({
      format: 2,
      leaf: { address: "alice" },
    });
  });

  it("follows a log from v1 leaves to v2 leaves through consistency proofs", async () => {
    const log = new FakeLog(undefined, () => NOW);
    log.append({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: NOW });
    log.append({ kind: "identity", address: "bob", ...keysOf(3), timestampMs: NOW });
    const store = memoryStore();
    const before = new KtVerifier({
      logPublicKey: log.publicKey,
      client: log.client(),
      store,
      now: () => NOW,
    });
    await before.verifyBundle("alice", bundleOf(log, "alice", 1));
    // The migration: one v2 leaf per address, then new registrations as v2 leaves.
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: NOW });
    log.appendV2({ kind: "identity", address: "bob", ...keysOf(3), timestampMs: NOW });
    log.appendV2({ kind: "identity", address: "carol", ...keysOf(5), timestampMs: NOW });
    const after = new KtVerifier({
      logPublicKey: log.publicKey,
      vrfPublicKey: log.vrfPublicKey,
      client: log.client(),
      store,
      now: () => NOW,
    });
    const carol = await after.verifyBundle("carol", bundleOf(log, "carol", 5));
    expect(carol).toMatchObject({ format: 3, leafIndex: 4 });
    expect((await after.trustedSth())?.treeSize).toBe(5);
    const alice = await after.verifyBundle("alice", bundleOf(log, "alice", 1));
    expect(alice).toMatchObject({ format: 3, leafIndex: 2 });
  });

  it("checks the option", () => {
    const log = new FakeLog();
    const base = { logPublicKey: log.publicKey, client: log.client() };
    expect(() => new KtVerifier({ ...base, vrfPublicKey: new Uint8Array(31) })).toThrow(RangeError);
    expect(() => new KtVerifier({ ...base, vrfPublicKey: "key" as never })).toThrow(TypeError);
  });
});
