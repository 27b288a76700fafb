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
 * `ktProof` of a bundle answer: an STH and a proof body that kt-verify parses strictly, and the
 * STH's checkpoint note with its witness cosignatures (absent from servers before KT v2).
 */
export const KtProofJson = v.object({
  sth: SthResponse,
  body: v.looseObject({ type: v.picklist(["inclusion", "tombstone", "absence"]) }),
  checkpoint: v.optional(v.pipe(v.string(), v.maxLength(1 << 20))),
});

export type SthJson = v.InferOutput<typeof SthResponse>;
