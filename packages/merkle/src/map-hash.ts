import { sha256 } from "@noble/hashes/sha2.js";
import { assertHash, HASH_SIZE } from "./assert.js";

/** Key length of the address index map in bits: keys are SHA-256 outputs. */
export const MAP_DEPTH = 256;

/** Hash of an empty subtree, at every depth: 32 zero bytes (no SHA-256 output is expected to equal it). */
export const EMPTY_MAP_NODE: Uint8Array = new Uint8Array(HASH_SIZE);

/** Prefixes separating map hashes from each other and from the log's 0x00 / 0x01. */
const MAP_LEAF_PREFIX = Uint8Array.of(0x02);
const MAP_NODE_PREFIX = Uint8Array.of(0x03);

/** Map key of an address: SHA-256 of its UTF-8 bytes (the address already normalized per D2). */
export function mapKey(address: string): Uint8Array {
  if (typeof address !== "string") throw new TypeError("address must be a string");
  return sha256(new TextEncoder().encode(address));
}

/** Hash of a subtree holding one key, at whatever depth: SHA-256(0x02 || key || value). */
export function mapLeafHash(key: Uint8Array, value: Uint8Array): Uint8Array {
  assertHash("key", key);
  assertHash("value", value);
  return sha256.create().update(MAP_LEAF_PREFIX).update(key).update(value).digest();
}

/** Hash of a subtree holding two keys or more: SHA-256(0x03 || left || right). */
export function mapNodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  assertHash("left", left);
  assertHash("right", right);
  return sha256.create().update(MAP_NODE_PREFIX).update(left).update(right).digest();
}

/** Root of the empty map: {@link EMPTY_MAP_NODE}. */
export function emptyMapRoot(): Uint8Array {
  return EMPTY_MAP_NODE.slice();
}
