import { deviceListChange, type KtLog } from "@svc/kt-log";
import { ktProofToJson, type SignedTreeHead, sthToJson } from "@svc/kt-verify";
import type { DevicesHooks } from "../devices/index.js";
import type { IdentityChange, KeysHooks, KtProofAnswer } from "../keys/index.js";

const utf8 = new TextEncoder();

/**
 * The keys routes' key-transparency hooks: each identity created, updated (its last-resort KEM
 * key set or replaced) or deleted becomes a log leaf (committed, with its STH, before the write
 * answers): an identity leaf committing to its keys and KEM key hash, or a tombstone. Bundle
 * answers carry a proof of exactly what they answer, KEM key hash included (KtLog.proofShowing).
 */
export function createKtHooks(
  log: KtLog,
): Required<Pick<KeysHooks, "identityChanged" | "bundleProof">> {
  // The bodies of the log's kept proofs, the STHs they are under and whole ktProof members,
  // already in their wire form: a steady stream of bundle fetches re-encodes nothing.
  const bodies = new WeakMap<object, { json: unknown; answer?: KtProofAnswer }>();
  const heads = new WeakMap<SignedTreeHead, unknown>();
  const sthJson = (sth: SignedTreeHead) => {
    let json = heads.get(sth);
    if (json === undefined) {
      json = sthToJson(sth);
      heads.set(sth, json);
    }
    return json;
  };
  return {
    async identityChanged(change: IdentityChange): Promise<void> {
      await log.append(
        change.kind === "deleted"
          ? { kind: "tombstone", address: change.address }
          : {
              kind: "identity",
              address: change.address,
              identitySigningKey: change.identitySigningKey,
              identityDHKey: change.identityDHKey,
              ...(change.kemKeyHash === undefined ? {} : { kemKeyHash: change.kemKeyHash }),
            },
      );
    },

    async bundleProof(address, identity) {
      const proof = await log.proofShowing(address, identity);
      if (proof === undefined) return undefined;
      const checkpoint = await log.checkpointFor(proof.sth);
      let body = bodies.get(proof.body);
      if (body === undefined) {
        body = { json: ktProofToJson(proof).body };
        bodies.set(proof.body, body);
      }
      const sth = sthJson(proof.sth);
      // The answer of the previous fetch of this body, when its head and checkpoint are the same.
      const last = body.answer;
      if (last && last.json.sth === sth && last.json.checkpoint === checkpoint) return last;
      const json = { sth, body: body.json, checkpoint };
      body.answer = { json, bytes: utf8.encode(JSON.stringify(json)) };
      return body.answer;
    },
  };
}

/**
 * The device list routes' key-transparency hooks: each version stored becomes a leaf under the
 * list's own name (committed before the write answers); a read carries the proof that its
 * version is the latest the log holds, or that the account never had a list.
 */
export function createDeviceKtHooks(log: KtLog): Required<DevicesHooks> {
  return {
    async listWritten(account, { version, listHash }) {
      await log.append(deviceListChange(account, listHash, version));
    },
    async listProof(account, listHash) {
      const proof = await log.deviceListProof(account, listHash);
      if (proof === undefined) return undefined;
      const json = { ...ktProofToJson(proof), checkpoint: await log.checkpointFor(proof.sth) };
      return { json, bytes: utf8.encode(JSON.stringify(json)) };
    },
  };
}
