import { equalBytes } from "@svc/canonical";
import type { KtLog } from "@svc/kt-log";
import { ktProofToJson, type SignedTreeHead, sthToJson } from "@svc/kt-verify";
import type { IdentityChange, KeysHooks } from "../keys/index.js";

/**
 * The keys routes' key-transparency hooks: each identity created or deleted becomes a log leaf
 * (committed, with its STH, before the write answers), and bundle answers carry the proof for
 * the address under the latest STH.
 */
export function createKtHooks(
  log: KtLog,
): Required<Pick<KeysHooks, "identityChanged" | "bundleProof">> {
  // The bodies of the log's proof cache, and the latest STH, already in their wire form: a
  // steady stream of bundle fetches re-encodes nothing.
  const bodies = new WeakMap<object, unknown>();
  let latest: { sth: SignedTreeHead; json: unknown } | undefined;
  const sthJson = (sth: SignedTreeHead) => {
    if (latest === undefined || !sameSth(latest.sth, sth)) latest = { sth, json: sthToJson(sth) };
    return latest.json;
  };
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
      let body = bodies.get(proof.body);
      if (body === undefined) {
        body = ktProofToJson(proof).body;
        bodies.set(proof.body, body);
      }
      const sth = sthJson(proof.sth);
      return {
        provesRegistered: proof.body.type === "inclusion",
        json: { sth, body, checkpoint },
      };
    },
  };
}

function sameSth(a: SignedTreeHead, b: SignedTreeHead): boolean {
  return a.treeSize === b.treeSize && equalBytes(a.signature, b.signature);
}
