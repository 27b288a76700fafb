import type { KtLog } from "@svc/kt-log";
import { ktProofToJson } from "@svc/kt-verify";
import type { IdentityChange, KeysHooks } from "../keys/index.js";

/**
 * The keys routes' key-transparency hooks: each identity created or deleted becomes a log leaf
 * (committed, with its STH, before the write answers), and bundle answers carry the proof for
 * the address under the latest STH.
 */
export function createKtHooks(
  log: KtLog,
): Required<Pick<KeysHooks, "identityChanged" | "bundleProof">> {
  return {
    async identityChanged(change: IdentityChange): Promise<void> {
      await log.append(
        change.kind === "created"
          ? {
              kind: "identity",
              address: change.address,
              identitySigningKey: change.identitySigningKey,
              identityDHKey: change.identityDHKey,
            }
          : { kind: "tombstone", address: change.address },
      );
    },

    async bundleProof(address: string) {
      const proof = await log.proofFor(address);
      const checkpoint = await log.checkpointFor(proof.sth);
      return {
        provesRegistered: proof.body.type === "inclusion",
        json: { ...ktProofToJson(proof), checkpoint },
      };
    },
  };
}
