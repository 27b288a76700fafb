/**
 * Literal transcriptions of the recursive definitions of RFC 9162 section 2.1 (MTH, PATH,
 * PROOF/SUBPROOF) over a list of leaf hashes, and of the index map's root and proofs over its key
 * set. Slow and obvious: the oracle the package's iterative, storage-backed code is compared with.
 */
import { equalBytes } from "@svc/canonical";
import { EMPTY_MAP_NODE, mapLeafHash, mapNodeHash } from "../map-hash.js";
import { keyBit } from "../map-path.js";
import type { MapEntry, MapProof } from "../map-proof.js";
import { emptyRoot, nodeHash } from "../tree-hash.js";

function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export function referenceRoot(d: readonly Uint8Array[]): Uint8Array {
  if (d.length === 0) return emptyRoot();
  if (d.length === 1) return d[0] as Uint8Array;
  const k = split(d.length);
  return nodeHash(referenceRoot(d.slice(0, k)), referenceRoot(d.slice(k)));
}

export function referencePath(m: number, d: readonly Uint8Array[]): Uint8Array[] {
  if (d.length <= 1) return [];
  const k = split(d.length);
  return m < k
    ? [...referencePath(m, d.slice(0, k)), referenceRoot(d.slice(k))]
    : [...referencePath(m - k, d.slice(k)), referenceRoot(d.slice(0, k))];
}

export function referenceConsistency(m: number, d: readonly Uint8Array[]): Uint8Array[] {
  if (m === 0 || m === d.length) return [];
  return subproof(m, d, true);
}

function subproof(m: number, d: readonly Uint8Array[], b: boolean): Uint8Array[] {
  if (m === d.length) return b ? [] : [referenceRoot(d)];
  const k = split(d.length);
  return m <= k
    ? [...subproof(m, d.slice(0, k), b), referenceRoot(d.slice(k))]
    : [...subproof(m - k, d.slice(k), false), referenceRoot(d.slice(0, k))];
}

/** Root of the compressed map by recursion over the set of keys (no stored nodes). */
export function referenceMapRoot(entries: readonly MapEntry[]): Uint8Array {
  return subtreeRoot(entries, 0);
}

/** The proof for `key` by the same recursion: walk down until an empty or a single-key subtree. */
export function referenceMapProof(entries: readonly MapEntry[], key: Uint8Array): MapProof {
  const bitmap = new Uint8Array(32);
  const siblings: Uint8Array[] = [];
  let below = entries;
  let depth = 0;
  while (below.length > 1) {
    const bit = keyBit(key, depth);
    const side = below.filter((e) => keyBit(e.key, depth) === bit);
    const sibling = subtreeRoot(
      below.filter((e) => keyBit(e.key, depth) !== bit),
      depth + 1,
    );
    if (!equalBytes(sibling, EMPTY_MAP_NODE)) {
      bitmap[depth >> 3] = (bitmap[depth >> 3] as number) | (0x80 >> (depth & 7));
      siblings.push(sibling);
    }
    below = side;
    depth += 1;
  }
  const [only] = below;
  if (only === undefined || equalBytes(only.key, key)) return { depth, bitmap, siblings };
  return { depth, bitmap, siblings, other: only };
}

function subtreeRoot(entries: readonly MapEntry[], depth: number): Uint8Array {
  const [first] = entries;
  if (first === undefined) return EMPTY_MAP_NODE;
  if (entries.length === 1) return mapLeafHash(first.key, first.value);
  const left = entries.filter((e) => keyBit(e.key, depth) === 0);
  const right = entries.filter((e) => keyBit(e.key, depth) === 1);
  return mapNodeHash(subtreeRoot(left, depth + 1), subtreeRoot(right, depth + 1));
}

export function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function unhex(text: string): Uint8Array {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** A copy of `bytes` with bit `bit` (0 = MSB of byte 0) flipped. */
export function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const out = bytes.slice();
  out[bit >> 3] = (out[bit >> 3] as number) ^ (0x80 >> (bit & 7));
  return out;
}
