import { encodeBase64, equalBytes, normalizeAddress } from "@svc/canonical";
import {
  leafHash,
  MAP_DEPTH,
  type MapProof,
  mapKey,
  verifyInclusion,
  verifyMapProof,
} from "@svc/merkle";
import { KtVerifyError } from "./errors.js";
import { decodeLeaf, encodeLeaf, type KtLeaf } from "./leaf.js";
import type { KtLeafV2 } from "./leaf-v2.js";
import { verifyFormat3Body } from "./proof-format3.js";
import { parseSth, type SignedTreeHead, sthToJson } from "./sth.js";
import { fieldBytes, fieldCount, fieldHashes, malformed, requireObject } from "./wire.js";

/** Bytes of a VRF proof (RFC 9381 ECVRF-EDWARDS25519-SHA512-TAI: Gamma, c, s). */
export const VRF_PROOF_SIZE = 80;
/** Bytes of a leaf commitment's opening. */
export const OPENING_SIZE = 32;
/** Bytes of a proof's `kemKeyHash` (SHA-256 of a last-resort KEM public key). */
export const KEM_KEY_HASH_SIZE = 32;

/**
 * Body of a `ktProof`: what the proof claims about one address under `sth`. Format 2 (a log
 * without a VRF key) has a v1 `leaf` and no `vrfProof`/`opening`; format 3 (protocol.md §9
 * "Private index") has a v2 `leaf`, the address's `vrfProof` (80 bytes) and, for inclusion and
 * tombstone, the `opening` (32 bytes) of the leaf's commitment, and for an identity that has a
 * last-resort KEM key, its `kemKeyHash` (32 bytes), which the commitment covers. Which format
 * applies is the verifier's choice (a pinned VRF key means format 3), never the body's.
 */
export type KtProofBody =
  | {
      type: "inclusion" | "tombstone";
      leaf: Uint8Array;
      leafIndex: number;
      auditPath: Uint8Array[];
      indexProof: MapProof;
      /** Format 3: the VRF proof of the address under the log's VRF key. */
      vrfProof?: Uint8Array;
      /** Format 3: the opening of the leaf's commitment. */
      opening?: Uint8Array;
      /**
       * Format 3, inclusion: SHA-256 of the identity's last-resort KEM public key, when the
       * leaf's commitment covers one.
       */
      kemKeyHash?: Uint8Array;
    }
  | {
      type: "absence";
      indexProof: MapProof;
      /** Format 3: the VRF proof of the address under the log's VRF key. */
      vrfProof?: Uint8Array;
    };

/** A parsed `ktProof` member of a bundle response. */
export interface KtProof {
  sth: SignedTreeHead;
  body: KtProofBody;
  /**
   * The signed checkpoint note of `sth` with its witness cosignatures, as the server sent it
   * (servers before KT v2 send none); checked only by a verifier with a witness policy.
   */
  checkpoint?: string;
}

/**
 * The KEM prekey of a bundle answer, as far as the log is concerned: the last-resort key's
 * SHA-256, which a leaf that commits a KEM key must commit to, or a one-time key (never logged;
 * its signature is the ratchet's to check).
 */
export type KtKemClaim = { lastResort: true; keyHash: Uint8Array } | { lastResort: false };

/**
 * What the proof must show: the bundle's own keys, a deleted address, or one never registered.
 * An inclusion claim without `kemPreKey` is an answer without a KEM prekey: under a leaf that
 * commits a KEM key (format 3), that is KT_KEM_MISSING.
 */
export type KtClaim =
  | {
      type: "inclusion";
      identitySigningKey: Uint8Array;
      identityDHKey: Uint8Array;
      kemPreKey?: KtKemClaim;
    }
  | { type: "tombstone" }
  | { type: "absence" };

/**
 * A proof that passed {@link verifyKtProofBody}: format 2 (v1 leaf, which names the address and
 * keys) or format 3 (v2 leaf: kind, VRF index, commitment and timestamp only). `kemCommitted`:
 * the proven leaf commits a last-resort KEM key (format 3 inclusion with `kemKeyHash`), so the
 * address is to be reached with post-quantum session setup only; always false for format 2.
 */
export type VerifiedKtProof =
  | {
      format: 2;
      type: KtProofBody["type"];
      sth: SignedTreeHead;
      /** The address's latest log leaf (absent for an absence proof). */
      leaf?: KtLeaf;
      leafIndex?: number;
      kemCommitted: false;
    }
  | {
      format: 3;
      type: KtProofBody["type"];
      sth: SignedTreeHead;
      /** The address's VRF index: its key in the index map. */
      index: Uint8Array;
      /** The address's latest log leaf (absent for an absence proof). */
      leaf?: KtLeafV2;
      leafIndex?: number;
      kemCommitted: boolean;
      /** The last-resort KEM key's SHA-256 the leaf commits to, when `kemCommitted`. */
      kemKeyHash?: Uint8Array;
    };

/**
 * Parses `ktProof` JSON; KtVerifyError KT_MALFORMED when it is not the documented shape. A
 * `checkpoint` member is kept when it is a string and otherwise left for the verifier to judge
 * (ignored without a witness policy).
 */
export function parseKtProof(json: unknown): KtProof {
  const object = requireObject(json, "ktProof");
  const sth = parseSth(object.sth, "ktProof.sth");
  const proof = { sth, body: parseProofBody(requireObject(object.body, "ktProof.body")) };
  return typeof object.checkpoint === "string"
    ? { ...proof, checkpoint: object.checkpoint }
    : proof;
}

function parseProofBody(body: Record<string, unknown>): KtProofBody {
  const where = "ktProof.body";
  const indexProof = parseIndexProof(body.indexProof);
  const vrfProof = optionalBytes(body, "vrfProof", VRF_PROOF_SIZE);
  if (body.type === "absence") {
    if (body.kemKeyHash !== undefined) {
      throw malformed(`${where}.kemKeyHash belongs to a format-3 inclusion body only`);
    }
    return { type: "absence", indexProof, ...vrfProof };
  }
  if (body.type !== "inclusion" && body.type !== "tombstone") {
    throw malformed('ktProof.body.type must be "inclusion", "tombstone" or "absence"');
  }
  const opening = optionalBytes(body, "opening", OPENING_SIZE);
  if ((vrfProof.vrfProof === undefined) !== (opening.opening === undefined)) {
    throw malformed(`${where}.vrfProof and ${where}.opening come together or not at all`);
  }
  const kemKeyHash = optionalBytes(body, "kemKeyHash", KEM_KEY_HASH_SIZE);
  if (
    kemKeyHash.kemKeyHash !== undefined &&
    (body.type !== "inclusion" || opening.opening === undefined)
  ) {
    throw malformed(`${where}.kemKeyHash belongs to a format-3 inclusion body only`);
  }
  return {
    type: body.type,
    leaf: fieldBytes(body, "leaf", where),
    leafIndex: fieldCount(body, "leafIndex", where),
    auditPath: fieldHashes(body, "auditPath", where),
    indexProof,
    ...vrfProof,
    ...opening,
    ...kemKeyHash,
  };
}

/** `{[name]: bytes}` when the member is there (base64 of `length` bytes), else `{}`. */
function optionalBytes<N extends string>(
  body: Record<string, unknown>,
  name: N,
  length: number,
): { [K in N]?: Uint8Array } {
  if (body[name] === undefined) return {};
  return { [name]: fieldBytes(body, name, "ktProof.body", length) } as { [K in N]?: Uint8Array };
}

/** The wire form of a proof (the inverse of {@link parseKtProof}). */
export function ktProofToJson(proof: KtProof): Record<string, unknown> {
  const { sth, body, checkpoint } = proof;
  const indexProof = indexProofToJson(body.indexProof);
  const bodyJson: Record<string, unknown> =
    body.type === "absence"
      ? { type: "absence", indexProof }
      : {
          type: body.type,
          leaf: encodeBase64(body.leaf),
          leafIndex: body.leafIndex,
          auditPath: body.auditPath.map(encodeBase64),
          indexProof,
        };
  if (body.vrfProof !== undefined) bodyJson.vrfProof = encodeBase64(body.vrfProof);
  if (body.type !== "absence" && body.opening !== undefined) {
    bodyJson.opening = encodeBase64(body.opening);
  }
  if (body.type !== "absence" && body.kemKeyHash !== undefined) {
    bodyJson.kemKeyHash = encodeBase64(body.kemKeyHash);
  }
  const json: Record<string, unknown> = { sth: sthToJson(sth), body: bodyJson };
  if (checkpoint !== undefined) json.checkpoint = checkpoint;
  return json;
}

/** The wire form of an index-map proof: `{depth, bitmap, siblings, other?: {key, value}}`. */
export function indexProofToJson(proof: MapProof): Record<string, unknown> {
  const json: Record<string, unknown> = {
    depth: proof.depth,
    bitmap: encodeBase64(proof.bitmap),
    siblings: proof.siblings.map(encodeBase64),
  };
  if (proof.other !== undefined) {
    json.other = { key: encodeBase64(proof.other.key), value: encodeBase64(proof.other.value) };
  }
  return json;
}

function parseIndexProof(json: unknown): MapProof {
  const where = "ktProof.body.indexProof";
  const object = requireObject(json, where);
  const depth = fieldCount(object, "depth", where);
  if (depth > MAP_DEPTH) throw malformed(`${where}.depth must be at most ${MAP_DEPTH}`);
  const proof = {
    depth,
    bitmap: fieldBytes(object, "bitmap", where, 32),
    siblings: fieldHashes(object, "siblings", where),
  };
  if (object.other === undefined) return proof;
  const other = requireObject(object.other, `${where}.other`);
  return {
    ...proof,
    other: {
      key: fieldBytes(other, "key", `${where}.other`, 32),
      value: fieldBytes(other, "value", `${where}.other`, 32),
    },
  };
}

/**
 * Checks a proof body against its own STH (whose signature the caller checks) and the claim:
 * the leaf is the address's and carries exactly the claimed keys (any timestamp), it is in the
 * log at `sth.treeSize`, and the index maps the address's key to its leaf hash (or to nothing).
 *
 * Without `vrfPublicKey`, format 2: a v1 leaf naming the address, map key SHA-256(address).
 * With it, format 3 only (a format-2 body is KT_MALFORMED: no downgrade): the index is computed
 * from `body.vrfProof` under `vrfPublicKey`, and the v2 leaf must carry it and the commitment
 * of `body.opening`, the address, the claimed keys and `body.kemKeyHash`, which the claim's KEM
 * prekey must then agree with (see {@link verifyFormat3Body}). Format 2 commits no KEM keys:
 * the claim's `kemPreKey` is not checked against it.
 */
export function verifyKtProofBody(
  address: string,
  proof: KtProof,
  claim: KtClaim,
  vrfPublicKey?: Uint8Array,
): VerifiedKtProof {
  const normalized = normalizeAddress(address);
  const { sth, body } = proof;
  if (body.type !== claim.type) {
    throw new KtVerifyError(
      "KT_KEY_MISMATCH",
      `expected a ${claim.type} proof, the server sent ${body.type}`,
    );
  }
  if (vrfPublicKey !== undefined) return verifyFormat3Body(normalized, proof, claim, vrfPublicKey);
  if (body.vrfProof !== undefined) {
    throw malformed("a format-3 proof (with vrfProof) needs the log's VRF public key");
  }
  const key = mapKey(normalized);
  if (body.type === "absence") {
    if (!verifyMapProof(sth.indexRoot, key, null, body.indexProof)) {
      throw badProof("the index proof does not show the address absent");
    }
    return { format: 2, type: "absence", sth, kemCommitted: false };
  }
  const leaf = decodeLeaf(body.leaf);
  checkLeafMatchesClaim(normalized, leaf, claim);
  const hash = leafHash(body.leaf);
  if (!verifyInclusion(hash, body.leafIndex, sth.treeSize, body.auditPath, sth.rootHash)) {
    throw badProof(`leaf ${body.leafIndex} is not in the log at size ${sth.treeSize}`);
  }
  if (!verifyMapProof(sth.indexRoot, key, hash, body.indexProof)) {
    throw badProof("the index proof does not map the address to this leaf");
  }
  return { format: 2, type: body.type, sth, leaf, leafIndex: body.leafIndex, kemCommitted: false };
}

function checkLeafMatchesClaim(address: string, leaf: KtLeaf, claim: KtClaim): void {
  if (leaf.address !== address) {
    throw new KtVerifyError("KT_KEY_MISMATCH", "the proven leaf is for another address");
  }
  const expectedKind = claim.type === "inclusion" ? "identity" : "tombstone";
  if (leaf.kind !== expectedKind) {
    throw new KtVerifyError("KT_KEY_MISMATCH", `the proven leaf is a ${leaf.kind} leaf`);
  }
  if (claim.type !== "inclusion" || leaf.kind !== "identity") return;
  const expected = encodeLeaf({
    kind: "identity",
    address,
    identitySigningKey: claim.identitySigningKey,
    identityDHKey: claim.identityDHKey,
    timestampMs: leaf.timestampMs,
  });
  if (!equalBytes(expected, encodeLeaf(leaf))) {
    throw new KtVerifyError(
      "KT_KEY_MISMATCH",
      "the bundle's identity keys are not the logged ones",
    );
  }
}

function badProof(message: string): KtVerifyError {
  return new KtVerifyError("KT_BAD_PROOF", message);
}
