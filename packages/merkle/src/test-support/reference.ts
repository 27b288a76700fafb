/**
 * Literal transcriptions of the recursive definitions of RFC 9162 section 2.1 (MTH, PATH,
 * PROOF/SUBPROOF) over a list of leaf hashes, and a recursive sparse map root. Slow and obvious:
 * the oracle the package's iterative, storage-backed code is compared with.
 */
import { defaultHashes, MAP_DEPTH, mapLeafHash, mapNodeHash } from "../map-hash.js";
import { keyBit } from "../map-path.js";
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

/** Root of a sparse map by recursion over the set of keys (no stored nodes). */
export function referenceMapRoot(
  entries: ReadonlyMap<string, [Uint8Array, Uint8Array]>,
): Uint8Array {
  return subtreeRoot([...entries.values()], 0);
}

function subtreeRoot(entries: [Uint8Array, Uint8Array][], depth: number): Uint8Array {
  if (entries.length === 0) return defaultHashes()[depth] as Uint8Array;
  if (depth === MAP_DEPTH) {
    const [key, value] = entries[0] as [Uint8Array, Uint8Array];
    return mapLeafHash(key, value);
  }
  const left = entries.filter(([key]) => keyBit(key, depth) === 0);
  const right = entries.filter(([key]) => keyBit(key, depth) === 1);
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
