import * as v from "valibot";
import { count, epochMs } from "./fields.js";

const hash = v.pipe(v.string(), v.length(44, "must be 32 bytes of base64"));

/** A signed tree head as served; kt-verify checks its signature and proofs. */
export const SthResponse = v.object({
  treeSize: count("treeSize"),
  timestampMs: epochMs("timestampMs"),
  rootHash: hash,
  indexRoot: hash,
  logId: hash,
  signature: v.pipe(v.string(), v.length(88)),
});

export const LogIdResponse = v.object({
  logId: hash,
  publicKey: hash,
  vrfPublicKey: v.optional(hash),
  origin: v.optional(v.string()),
  checkpointKey: v.optional(v.string()),
});

export const VrfIndexResponse = v.object({
  address: v.string(),
  index: hash,
  vrfProof: v.pipe(v.string(), v.length(108, "must be 80 bytes of base64")),
});

export const ConsistencyResponse = v.object({
  fromTreeSize: count("fromTreeSize"),
  toTreeSize: count("toTreeSize"),
  proof: v.array(hash),
});

export const LeavesResponse = v.object({ start: count("start"), leaves: v.array(v.string()) });

/**
 * Members of a proof body are typed only: their lengths and encodings are kt-verify's to judge
 * (KT_MALFORMED), as is everything a proof claims.
 */
const bytes = v.string();

/**
 * A path in the index map, which is keyed by the address's VRF index (format 3) or by SHA-256 of
 * the address (format 2, a log without a VRF key): `depth` levels, a bitmap of the non-empty
 * siblings, and `other`, the one leaf met where the address's key is absent.
 */
export const IndexProof = v.object({
  depth: v.number(),
  bitmap: bytes,
  siblings: v.array(bytes),
  other: v.optional(v.object({ key: bytes, value: bytes })),
});

/** An inclusion (registered) or tombstone (deleted) proof: the address's latest log leaf. */
export const KtLeafProofBody = v.object({
  type: v.picklist(["inclusion", "tombstone"]),
  leaf: bytes,
  leafIndex: v.number(),
  auditPath: v.array(bytes),
  indexProof: IndexProof,
  /** Format 3: the ECVRF-EDWARDS25519-SHA512-TAI proof (80 bytes) of the address's index. */
  vrfProof: v.optional(bytes),
  /** Format 3: the 32-byte opening of the leaf's commitment. */
  opening: v.optional(bytes),
  /**
   * Format 3, an identity that has a last-resort ML-KEM key: SHA-256 of that key, which the
   * leaf's commitment covers. Absent when the identity has none.
   */
  kemKeyHash: v.optional(bytes),
});

/** An absence proof: the address (never registered) has no leaf in the index map. */
export const KtAbsenceProofBody = v.object({
  type: v.literal("absence"),
  indexProof: IndexProof,
  vrfProof: v.optional(bytes),
});

/**
 * `ktProof` of a bundle answer: an STH and a proof body of one of three kinds that kt-verify
 * parses strictly, and the STH's checkpoint note with its witness cosignatures (absent from
 * servers before KT v2).
 */
export const KtProofJson = v.object({
  sth: SthResponse,
  body: v.variant("type", [KtLeafProofBody, KtAbsenceProofBody]),
  checkpoint: v.optional(v.pipe(v.string(), v.maxLength(1 << 20))),
});

export type SthJson = v.InferOutput<typeof SthResponse>;
