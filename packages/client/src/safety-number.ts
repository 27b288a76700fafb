import { sha256, sha512 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, normalizeAddress } from "@svc/canonical";
import type { IdentityKeys } from "@svc/protocol";

/** One side of a conversation: a normalized address (D2) and its identity keys. */
export interface Party {
  address: string;
  keys: IdentityKeys;
}

const utf8 = new TextEncoder();
const FINGERPRINT_DOMAIN = utf8.encode("svc-identity-fingerprint-v1\0");
const SAFETY_NUMBER_DOMAIN = utf8.encode("svc-safety-number-v1\0");

/** SHA-512 rounds after the first (docs/protocol.md §16): makes a search for a look-alike costly. */
export const SAFETY_NUMBER_ITERATIONS = 5200;

/**
 * The fingerprint of identity keys, as messages show it: the first 16 bytes of
 * SHA-256("svc-identity-fingerprint-v1" 0x00 || identitySigningKey || identityDHKey), lower-case
 * hex in 8 groups of 4 separated by spaces (docs/protocol.md §16).
 */
export function identityFingerprint(keys: IdentityKeys): string {
  const digest = sha256(concatBytes(FINGERPRINT_DOMAIN, identityKeyBytes(keys)));
  return groups(bytesToHex(digest.subarray(0, 16)), 4);
}

/**
 * One party's 30 digits: h = SHA-512(domain || keys || u16be len || address), then
 * SAFETY_NUMBER_ITERATIONS times h = SHA-512(h || keys); each of the first six 5-byte chunks of h,
 * read big-endian, modulo 100000, as 5 digits.
 */
export function partyDigits(party: Party): string {
  const keys = identityKeyBytes(party.keys);
  const address = utf8.encode(normalizeAddress(party.address));
  let hash = sha512(
    concatBytes(
      SAFETY_NUMBER_DOMAIN,
      keys,
      new Uint8Array([address.length >> 8, address.length & 0xff]),
      address,
    ),
  );
  for (let i = 0; i < SAFETY_NUMBER_ITERATIONS; i++) {
    hash = sha512.create().update(hash).update(keys).digest();
  }
  let digits = "";
  for (let chunk = 0; chunk < 6; chunk++) {
    let value = 0;
    for (const byte of hash.subarray(chunk * 5, chunk * 5 + 5)) value = value * 256 + byte;
    digits += String(value % 100_000).padStart(5, "0");
  }
  return digits;
}

/**
 * The 60 digits both parties compute alike: their two partyDigits, the smaller first (as
 * strings of equal length), concatenated.
 */
export function safetyNumber(local: Party, remote: Party): string {
  return [partyDigits(local), partyDigits(remote)].sort().join("");
}

/** 60 digits as people compare them: 12 groups of 5, in 3 lines of 4 groups. */
export function formatSafetyNumber(digits: string): string {
  const grouped = groups(digits, 5).split(" ");
  return [0, 4, 8].map((start) => grouped.slice(start, start + 4).join(" ")).join("\n");
}

function identityKeyBytes(keys: IdentityKeys): Uint8Array {
  if (keys.identitySigningKey.length !== 32 || keys.identityDHKey.length !== 32) {
    throw new RangeError("identity keys must be 32 bytes each");
  }
  return concatBytes(keys.identitySigningKey, keys.identityDHKey);
}

function groups(text: string, size: number): string {
  return (text.match(new RegExp(`.{1,${size}}`, "g")) ?? []).join(" ");
}
