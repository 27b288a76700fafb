import { encodeBase64 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { checkpointText } from "./checkpoint.js";
import { FakeLog, key32 } from "./test-support/fake-log.js";
import { codeOf, NOW, register, verifierFor, witnessedLog } from "./test-support/witnessed-log.js";

describe("a split view against a witness policy", () => {
  it("refuses the other tree of a split view, which no witness cosigned", async () => {
    // One operator key, two trees of size 2: the one the witnesses saw, and one with another
    // key for bob, each correctly signed by the operator (STH and checkpoint).
    const seen = witnessedLog();
    register(seen, "bob", 3);
    const hidden = new FakeLog(undefined, () => NOW);
    register(hidden, "alice", 1);
    register(hidden, "bob", 7);
    expect(hidden.latestSth().treeSize).toBe(seen.latestSth().treeSize);
    expect(hidden.latestSth().rootHash).not.toEqual(seen.latestSth().rootHash);
    const bobBundle = (log: FakeLog, n: number, checkpoint: string) => ({
      identitySigningKey: encodeBase64(key32(n)),
      identityDHKey: encodeBase64(key32(n + 1)),
      ktProof: { ...log.proofJson("bob"), checkpoint },
    });
    expect(
      await codeOf(verifierFor(seen).verifyBundle("bob", bobBundle(seen, 3, seen.checkpoint()))),
    ).toBe("accepted");
    // Without a policy a new client takes the hidden tree: nothing tells it apart.
    expect(
      await codeOf(
        verifierFor(hidden, null).verifyBundle("bob", bobBundle(hidden, 7, hidden.checkpoint())),
      ),
    ).toBe("accepted");
    // With one: the hidden tree's own checkpoint has no cosignature, the witnessed tree's
    // cosignatures do not verify over it, and the witnessed checkpoint is not its STH's.
    const hiddenText = checkpointText(hidden.origin, hidden.latestSth());
    const seenLines = seen.checkpoint().split("\n\n")[1]?.split("\n").slice(1, -1) ?? [];
    expect(seenLines).toHaveLength(2);
    const borrowed = hidden.signCheckpoint(hiddenText) + seenLines.map((l) => `${l}\n`).join("");
    const attempts: [string, string][] = [
      [hidden.checkpoint(), "KT_WITNESS_QUORUM"],
      [borrowed, "KT_BAD_SIGNATURE"],
      [seen.checkpoint(), "KT_CHECKPOINT_MISMATCH"],
    ];
    for (const [checkpoint, code] of attempts) {
      const verifier = verifierFor(hidden);
      expect(await codeOf(verifier.verifyBundle("bob", bobBundle(hidden, 7, checkpoint)))).toBe(
        code,
      );
      expect(await verifier.trustedSth()).toBeUndefined();
    }
  });
});
