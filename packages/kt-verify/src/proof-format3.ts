import { equalBytes } from "@svc/canonical";
import { leafHash, verifyInclusion, verifyMapProof } from "@svc/merkle";
import { KtVerifyError } from "./errors.js";
import { checkKemClaim } from "./kem-claim.js";
import { decodeLeafV2, leafCommitment } from "./leaf-v2.js";
import type { KtClaim, KtProof, VerifiedKtProof } from "./proof.js";
import { vrfIndex } from "./vrf-index.js";
import { malformed } from "./wire.js";

/**
 * Format 3 (protocol.md §9 "Private index") of {@link verifyKtProofBody}, for a normalized
 * address whose claim matches the body's type:
 *
 * 1. `index` = the first 32 bytes of ECVRF_verify(vrfPublicKey, body.vrfProof, address)
 *    (KT_MALFORMED without `vrfProof`, KT_BAD_PROOF when it does not verify);
 * 2. absence: the map proof shows `index` absent under `sth.indexRoot`;
 * 3. inclusion, tombstone (KT_MALFORMED without `opening`, or a leaf that is not a v2 leaf): the
 *    leaf carries `index` (KT_BAD_PROOF), is of the claimed kind and commits to `opening`, the
 *    address, the claimed keys and the body's `kemKeyHash` if any (KT_KEY_MISMATCH); the claim's
 *    KEM prekey agrees with that hash (KT_KEM_MISMATCH, KT_KEM_MISSING); it is leaf `leafIndex`
 *    of the log and the map proof maps `index` to its leaf hash (KT_BAD_PROOF).
 */
export function verifyFormat3Body(
  address: string,
  proof: KtProof,
  claim: KtClaim,
  vrfPublicKey: Uint8Array,
): VerifiedKtProof {
  const { sth, body } = proof;
  if (body.vrfProof === undefined) {
    throw malformed("ktProof.body.vrfProof is missing: the log's VRF key asks for format 3");
  }
  const index = vrfIndex(vrfPublicKey, body.vrfProof, address);
  if (index === undefined) {
    throw badProof("the VRF proof does not verify for this address under the log's VRF key");
  }
  if (body.type === "absence") {
    if (!verifyMapProof(sth.indexRoot, index, null, body.indexProof)) {
      throw badProof("the index proof does not show the address's VRF index absent");
    }
    return { format: 3, type: "absence", sth, index, kemCommitted: false };
  }
  if (body.opening === undefined) {
    throw malformed("ktProof.body.opening is missing: the log's VRF key asks for format 3");
  }
  const leaf = decodeLeafV2(body.leaf);
  if (!equalBytes(leaf.index, index)) {
    throw badProof("the proven leaf is at another VRF index than the address's");
  }
  const expectedKind = claim.type === "inclusion" ? "identity" : "tombstone";
  if (leaf.kind !== expectedKind) {
    throw new KtVerifyError("KT_KEY_MISMATCH", `the proven leaf is a ${leaf.kind} leaf`);
  }
  const kemKeyHash = body.type === "inclusion" ? body.kemKeyHash : undefined;
  const keys =
    claim.type === "inclusion"
      ? {
          identitySigningKey: claim.identitySigningKey,
          identityDHKey: claim.identityDHKey,
          kemKeyHash,
        }
      : undefined;
  if (!equalBytes(leaf.commitment, leafCommitment(body.opening, address, keys))) {
    throw new KtVerifyError(
      "KT_KEY_MISMATCH",
      claim.type === "inclusion"
        ? "the bundle's identity keys are not the logged ones (commitment mismatch)"
        : "the tombstone does not commit to this address",
    );
  }
  if (claim.type === "inclusion") checkKemClaim(kemKeyHash, claim.kemPreKey);
  const hash = leafHash(body.leaf);
  if (!verifyInclusion(hash, body.leafIndex, sth.treeSize, body.auditPath, sth.rootHash)) {
    throw badProof(`leaf ${body.leafIndex} is not in the log at size ${sth.treeSize}`);
  }
  if (!verifyMapProof(sth.indexRoot, index, hash, body.indexProof)) {
    throw badProof("the index proof does not map the address's VRF index to this leaf");
  }
  return {
    format: 3,
    type: body.type,
    sth,
    index,
    leaf,
    leafIndex: body.leafIndex,
    kemCommitted: kemKeyHash !== undefined,
    ...(kemKeyHash === undefined ? {} : { kemKeyHash }),
  };
}

function badProof(message: string): KtVerifyError {
  return new KtVerifyError("KT_BAD_PROOF", message);
}
