import { sha256 } from "@noble/hashes/sha2.js";
import { concatBytes, encodeBase64, u64be } from "@svc/canonical";
import { fieldBytes, fieldCount, requireObject } from "./wire.js";

/** DOMAIN_STH (D8): the 14 ASCII bytes `svc-kt-sth-v1` and 0x00. */
export const DOMAIN_STH: Uint8Array = new TextEncoder().encode("svc-kt-sth-v1\0");

/** The signed part of a tree head. */
export interface TreeHead {
  readonly treeSize: number;
  readonly timestampMs: number;
  readonly rootHash: Uint8Array;
  readonly indexRoot: Uint8Array;
  readonly logId: Uint8Array;
}

/** A tree head with the operator's Ed25519 signature over {@link sthMessage}. */
export interface SignedTreeHead extends TreeHead {
  readonly signature: Uint8Array;
}

/** STH as JSON on the wire: byte strings in base64. */
export interface SthJson {
  treeSize: number;
  timestampMs: number;
  rootHash: string;
  indexRoot: string;
  logId: string;
  signature: string;
}

/** DOMAIN_STH || u64be(treeSize) || u64be(timestampMs) || rootHash || indexRoot || logId. */
export function sthMessage(head: TreeHead): Uint8Array {
  if (typeof head !== "object" || head === null) throw new TypeError("head must be an object");
  for (const name of ["rootHash", "indexRoot", "logId"] as const) {
    const value = head[name];
    if (!(value instanceof Uint8Array)) throw new TypeError(`head.${name} must be a Uint8Array`);
    if (value.length !== 32) throw new RangeError(`head.${name} must be 32 bytes`);
  }
  return concatBytes(
    DOMAIN_STH,
    u64be(head.treeSize),
    u64be(head.timestampMs),
    head.rootHash,
    head.indexRoot,
    head.logId,
  );
}

/** logId = SHA-256(operator Ed25519 public key). */
export function logIdOf(publicKey: Uint8Array): Uint8Array {
  if (!(publicKey instanceof Uint8Array)) throw new TypeError("publicKey must be a Uint8Array");
  if (publicKey.length !== 32) throw new RangeError("publicKey must be 32 bytes");
  return sha256(publicKey);
}

/** Parses an STH received as JSON; KtVerifyError KT_MALFORMED when it is not one. */
export function parseSth(json: unknown, where = "sth"): SignedTreeHead {
  const object = requireObject(json, where);
  return {
    treeSize: fieldCount(object, "treeSize", where),
    timestampMs: fieldCount(object, "timestampMs", where),
    rootHash: fieldBytes(object, "rootHash", where, 32),
    indexRoot: fieldBytes(object, "indexRoot", where, 32),
    logId: fieldBytes(object, "logId", where, 32),
    signature: fieldBytes(object, "signature", where, 64),
  };
}

/** The wire form of an STH. */
export function sthToJson(sth: SignedTreeHead): SthJson {
  return {
    treeSize: sth.treeSize,
    timestampMs: sth.timestampMs,
    rootHash: encodeBase64(sth.rootHash),
    indexRoot: encodeBase64(sth.indexRoot),
    logId: encodeBase64(sth.logId),
    signature: encodeBase64(sth.signature),
  };
}
