import { type IdentityKeys, ML_KEM_1024, RATCHET_ENVELOPE_TYPE } from "@svc/protocol";
import { NONCE_SIZE, TAG_SIZE } from "./aead.js";
import { KEY_SIZE } from "./assert.js";
import { ByteReader, ByteWriter } from "./bytes.js";
import { RatchetError } from "./errors.js";
import { MAX_MESSAGE_NUMBER } from "./state.js";

/** Kind byte of a message in an established session (version 1). */
export const MESSAGE_KIND = 0x01;
/** Kind byte of an initiator's message that still carries its X3DH fields (version 1). */
export const PREKEY_MESSAGE_KIND = 0x02;
/** Kind byte of an initiator's message that still carries its PQXDH fields. */
export const PQXDH_PREKEY_MESSAGE_KIND = 0x03;

/** dh (32) || pn (u32be) || n (u32be). */
export const HEADER_SIZE = KEY_SIZE + 8;
/** identitySigningKey, identityDHKey, baseKey (32 each), spk id (u64be), opk flag, opk id (u64be). */
export const PREKEY_FIELDS_SIZE = 3 * KEY_SIZE + 8 + 1 + 8;
/** After the X3DH fields: KEM prekey id (u64be), last-resort flag (u8), ML-KEM ciphertext. */
export const KEM_FIELDS_SIZE = 8 + 1 + ML_KEM_1024.ciphertext;
export const PQXDH_PREKEY_FIELDS_SIZE = PREKEY_FIELDS_SIZE + KEM_FIELDS_SIZE;
export const MESSAGE_PREFIX_SIZE = 2 + HEADER_SIZE;
export const PREKEY_PREFIX_SIZE = 2 + PREKEY_FIELDS_SIZE + HEADER_SIZE;
export const PQXDH_PREKEY_PREFIX_SIZE = 2 + PQXDH_PREKEY_FIELDS_SIZE + HEADER_SIZE;

/** The Double Ratchet header. */
export interface RatchetHeader {
  /** The sender's current ratchet public key. */
  dh: Uint8Array;
  /** Number of messages in the sender's previous sending chain. */
  pn: number;
  /** Message number in the current sending chain. */
  n: number;
}

/** What a first message tells the responder to run X3DH. */
export interface PreKeyFields extends IdentityKeys {
  /** The initiator's ephemeral key EK_A. */
  baseKey: Uint8Array;
  signedPreKeyId: number;
  oneTimePreKeyId: number | null;
  /** PQXDH only: the KEM prekey the initiator encapsulated to, and the ciphertext. */
  kemPreKey?: KemPreKeyFields;
}

export interface KemPreKeyFields {
  keyId: number;
  lastResort: boolean;
  /** ML-KEM-1024 ciphertext (1568 bytes). */
  ciphertext: Uint8Array;
}

/** Whether encoded prekey fields are PQXDH's (kind 0x03) rather than X3DH's (kind 0x02). */
export function isPostQuantum(preKeyBytes: Uint8Array): boolean {
  return preKeyBytes.length === PQXDH_PREKEY_FIELDS_SIZE;
}

export interface DecodedEnvelope {
  header: RatchetHeader;
  /** Present in the prekey form only. */
  preKey: PreKeyFields | null;
  /** The encoded prekey fields (compared as bytes with a session's), or null. */
  preKeyBytes: Uint8Array | null;
  /** Every byte before the nonce; bound into the AEAD's associated data. */
  prefix: Uint8Array;
  nonce: Uint8Array;
  /** AEAD output: the encrypted plaintext and the 16-byte tag. */
  ciphertext: Uint8Array;
}

/**
 * Everything before the nonce: the normal form when preKeyBytes is null, else the prekey form
 * (kind 0x02 for X3DH fields, 0x03 for PQXDH fields).
 */
export function encodeEnvelopePrefix(
  preKeyBytes: Uint8Array | null,
  header: RatchetHeader,
): Uint8Array {
  const writer = new ByteWriter(2 + (preKeyBytes?.length ?? 0) + HEADER_SIZE);
  writer.u8(RATCHET_ENVELOPE_TYPE);
  if (!preKeyBytes) writer.u8(MESSAGE_KIND);
  else if (isPostQuantum(preKeyBytes)) writer.u8(PQXDH_PREKEY_MESSAGE_KIND).raw(preKeyBytes);
  else writer.u8(PREKEY_MESSAGE_KIND).raw(preKeyBytes);
  return writer.raw(header.dh).u32(header.pn).u32(header.n).bytes;
}

/** The X3DH fields, followed by the KEM fields when `fields.kemPreKey` is present. */
export function encodePreKeyFields(fields: PreKeyFields): Uint8Array {
  const oneTime = fields.oneTimePreKeyId;
  const kem = fields.kemPreKey;
  const writer = new ByteWriter(kem ? PQXDH_PREKEY_FIELDS_SIZE : PREKEY_FIELDS_SIZE)
    .raw(fields.identitySigningKey)
    .raw(fields.identityDHKey)
    .raw(fields.baseKey)
    .u64(fields.signedPreKeyId)
    .u8(oneTime === null ? 0 : 1)
    .u64(oneTime ?? 0);
  if (kem)
    writer
      .u64(kem.keyId)
      .u8(kem.lastResort ? 1 : 0)
      .raw(kem.ciphertext);
  return writer.bytes;
}

/** Strict: any deviation from the layout is RATCHET_MALFORMED_ENVELOPE. */
export function decodeEnvelope(bytes: Uint8Array): DecodedEnvelope {
  const reader = new ByteReader(bytes, malformed);
  if (reader.u8() !== RATCHET_ENVELOPE_TYPE) throw malformed("leading byte is not 0x02");
  const kind = reader.u8();
  const preKeySize = PREKEY_FIELDS_BY_KIND.get(kind);
  if (preKeySize === undefined) {
    throw new RatchetError("RATCHET_UNSUPPORTED_VERSION", `unknown envelope kind 0x${hex(kind)}`);
  }
  let preKey: PreKeyFields | null = null;
  let preKeyBytes: Uint8Array | null = null;
  if (preKeySize > 0) {
    preKeyBytes = reader.raw(preKeySize);
    preKey = decodePreKeyFields(preKeyBytes, malformed);
  }
  const header = { dh: reader.raw(KEY_SIZE), pn: reader.u32(), n: reader.u32() };
  if (header.n === MAX_MESSAGE_NUMBER) throw malformed("message number 2^32 - 1");
  const prefixSize = 2 + preKeySize + HEADER_SIZE;
  const nonce = reader.raw(NONCE_SIZE);
  if (reader.remaining < TAG_SIZE) throw malformed("ciphertext shorter than the AEAD tag");
  return {
    header,
    preKey,
    preKeyBytes,
    prefix: bytes.slice(0, prefixSize),
    nonce,
    ciphertext: reader.rest(),
  };
}

/** Length of the prekey fields each known kind carries. */
const PREKEY_FIELDS_BY_KIND = new Map([
  [MESSAGE_KIND, 0],
  [PREKEY_MESSAGE_KIND, PREKEY_FIELDS_SIZE],
  [PQXDH_PREKEY_MESSAGE_KIND, PQXDH_PREKEY_FIELDS_SIZE],
]);

/** X3DH fields, or PQXDH's when `bytes` has their length. */
export function decodePreKeyFields(
  bytes: Uint8Array,
  fail: (reason: string) => RatchetError,
): PreKeyFields {
  const reader = new ByteReader(bytes, fail);
  const identitySigningKey = reader.raw(KEY_SIZE);
  const identityDHKey = reader.raw(KEY_SIZE);
  const baseKey = reader.raw(KEY_SIZE);
  const signedPreKeyId = reader.u64();
  const hasOneTime = reader.u8();
  const oneTimeId = reader.u64();
  if (hasOneTime > 1) throw fail("one-time prekey flag is neither 0 nor 1");
  if (hasOneTime === 0 && oneTimeId !== 0) throw fail("one-time prekey id without its flag");
  const fields: PreKeyFields = {
    identitySigningKey,
    identityDHKey,
    baseKey,
    signedPreKeyId,
    oneTimePreKeyId: hasOneTime ? oneTimeId : null,
  };
  if (isPostQuantum(bytes)) {
    const keyId = reader.u64();
    const lastResort = reader.u8();
    if (lastResort > 1) throw fail("last-resort flag is neither 0 nor 1");
    const ciphertext = reader.raw(ML_KEM_1024.ciphertext);
    fields.kemPreKey = { keyId, lastResort: lastResort === 1, ciphertext };
  }
  reader.end();
  return fields;
}

function malformed(reason: string): RatchetError {
  return new RatchetError("RATCHET_MALFORMED_ENVELOPE", `malformed envelope: ${reason}`);
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}
