import { ed25519Sign, portableEd25519 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { requireSameIdentity, verifySignedPreKey } from "./identity-rules.js";
import { registration, seed } from "./test-support/identities.js";

describe("identity rules", () => {
  it("accepts the stored identity keys and refuses any other", () => {
    const a = registration("alice", "a");
    const b = registration("alice", "b");
    expect(() => requireSameIdentity(a, { ...a })).not.toThrow();
    expect(() =>
      requireSameIdentity(a, { ...a, identitySigningKey: b.identitySigningKey }),
    ).toThrow(expect.objectContaining({ code: "SVC_IDENTITY_MISMATCH" }));
    expect(() => requireSameIdentity(a, { ...a, identityDHKey: b.identityDHKey })).toThrow(
      expect.objectContaining({ code: "SVC_IDENTITY_MISMATCH" }),
    );
  });

  it("verifies the signed prekey over its 32 raw bytes with the identity key", () => {
    const a = registration("alice", "a");
    expect(() =>
      verifySignedPreKey(portableEd25519, a.identitySigningKey, a.signedPreKey),
    ).not.toThrow();
    const byOtherKey = {
      ...a.signedPreKey,
      signature: ed25519Sign(a.signedPreKey.publicKey, seed("x")),
    };
    const overOtherBytes = { ...a.signedPreKey, publicKey: a.identityDHKey };
    for (const signedPreKey of [byOtherKey, overOtherBytes]) {
      expect(() => verifySignedPreKey(portableEd25519, a.identitySigningKey, signedPreKey)).toThrow(
        expect.objectContaining({ code: "SVC_INVALID_SIGNED_PREKEY" }),
      );
    }
  });
});
