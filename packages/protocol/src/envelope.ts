import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** Leading byte of a Double Ratchet envelope: inbox ciphertexts and transfer control messages. */
export const RATCHET_ENVELOPE_TYPE = 0x02;

/** An inbox message id: lower-hex SHA-256 of the ciphertext bytes. */
export function msgIdOf(ciphertext: Uint8Array): string {
  return bytesToHex(sha256(ciphertext));
}

export const MSG_ID_PATTERN = /^[0-9a-f]{64}$/;
