import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, equalBytes, isValidAddress, normalizeAddress } from "@svc/canonical";
import { leafHash, verifyInclusion, verifyMapProof } from "@svc/merkle";
import { requireBytes } from "./arguments.js";
import { KtVerifyError } from "./errors.js";
import { COMMITMENT_DOMAIN, decodeLeafV2 } from "./leaf-v2.js";
import type { KtProof, VerifiedKtProof } from "./proof.js";
import { VRF_INDEX_LENGTH } from "./vrf-index.js";
import { verifiedVrfOutput } from "./vrf-outputs.js";
import { malformed } from "./wire.js";

const utf8 = new TextEncoder();
const HASH_SIZE = 32;

/**
 * The name an account's device list has in the log: `devices/` and the account. An address
 * never holds a `/`, so no address shares a list's VRF index or commitment.
 */
export function deviceListSubject(account: string): string {
  if (typeof account !== "string" || !isValidAddress(account)) {
    throw new RangeError("account must be a valid address");
  }
  if (normalizeAddress(account) !== account) throw new RangeError("account must be normalized");
  return `devices/${account}`;
}

/**
 * SHA-256(COMMITMENT_DOMAIN || opening (32) || u16be len(subject) || subject || listHash (32)):
 * the commitment of the identity leaf that logs one version of `account`'s device list. Its 32
 * bytes after the name can never be read as an identity's keys (64 or 96 bytes).
 */
export function deviceListCommitment(
  opening: Uint8Array,
  account: string,
  listHash: Uint8Array,
): Uint8Array {
  requireBytes(opening, "opening", HASH_SIZE);
  requireBytes(listHash, "listHash", HASH_SIZE);
  const subject = utf8.encode(deviceListSubject(account));
  return sha256(
    concatBytes(
      COMMITMENT_DOMAIN,
      opening,
      Uint8Array.of(subject.length >> 8, subject.length & 0xff),
      subject,
      listHash,
    ),
  );
}

/**
 * Checks a format-3 proof about `account`'s device list: with `listHash`, that the list's latest
 * leaf is an identity leaf committing to exactly that hash, in the log and mapped from the
 * list's VRF index; without, that the account never had a list. KT_MALFORMED for a body that is
 * not format 3 or of another type, KT_BAD_PROOF for a proof that does not verify, KT_KEY_MISMATCH
 * for a leaf that commits another list.
 */
export function verifyDeviceListBody(
  account: string,
  proof: KtProof,
  listHash: Uint8Array | undefined,
  vrfPublicKey: Uint8Array,
): VerifiedKtProof {
  const { sth, body } = proof;
  const expected = listHash === undefined ? "absence" : "inclusion";
  if (body.type !== expected) {
    throw new KtVerifyError(
      "KT_KEY_MISMATCH",
      `expected a device list ${expected} proof, the server sent ${body.type}`,
    );
  }
  if (body.vrfProof === undefined) {
    throw malformed("ktProof.body.vrfProof is missing: device lists are proved in format 3");
  }
  const beta = verifiedVrfOutput(
    vrfPublicKey,
    utf8.encode(deviceListSubject(account)),
    body.vrfProof,
  );
  if (beta === undefined) {
    throw badProof("the VRF proof does not verify for this account's device list");
  }
  const index = beta.slice(0, VRF_INDEX_LENGTH);
  if (body.type === "absence") {
    if (!verifyMapProof(sth.indexRoot, index, null, body.indexProof)) {
      throw badProof("the index proof does not show the device list's VRF index absent");
    }
    return { format: 3, type: "absence", sth, index, kemCommitted: false };
  }
  if (body.opening === undefined || body.kemKeyHash !== undefined) {
    throw malformed("a device list's inclusion body has an opening and no kemKeyHash");
  }
  const leaf = decodeLeafV2(body.leaf);
  if (!equalBytes(leaf.index, index)) {
    throw badProof("the proven leaf is at another VRF index than the device list's");
  }
  const commitment = deviceListCommitment(body.opening, account, listHash as Uint8Array);
  if (leaf.kind !== "identity" || !equalBytes(leaf.commitment, commitment)) {
    throw new KtVerifyError(
      "KT_KEY_MISMATCH",
      "the served device list is not the one the log holds (commitment mismatch)",
    );
  }
  const hash = leafHash(body.leaf);
  if (!verifyInclusion(hash, body.leafIndex, sth.treeSize, body.auditPath, sth.rootHash)) {
    throw badProof(`leaf ${body.leafIndex} is not in the log at size ${sth.treeSize}`);
  }
  if (!verifyMapProof(sth.indexRoot, index, hash, body.indexProof)) {
    throw badProof("the index proof does not map the device list's VRF index to this leaf");
  }
  return {
    format: 3,
    type: "inclusion",
    sth,
    index,
    leaf,
    leafIndex: body.leafIndex,
    kemCommitted: false,
  };
}

function badProof(message: string): KtVerifyError {
  return new KtVerifyError("KT_BAD_PROOF", message);
}
