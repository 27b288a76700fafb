import { KEY_SIZE } from "./assert.js";
import { ByteReader, ByteWriter } from "./bytes.js";
import {
  decodePreKeyFields,
  isPostQuantum,
  PQXDH_PREKEY_FIELDS_SIZE,
  PREKEY_FIELDS_SIZE,
} from "./envelope.js";
import { RatchetError } from "./errors.js";
import { MAX_SKIPPED_AGE, MAX_SKIPPED_KEYS, type SessionState } from "./state.js";
import { ASSOCIATED_DATA_SIZE } from "./x3dh.js";

/** "svcR": keeps other byte strings from being read as a session by accident. */
const MAGIC = Uint8Array.of(0x73, 0x76, 0x63, 0x52);
/** Version 1 keeps X3DH fields; version 2, the same layout with PQXDH fields in their place. */
export const STATE_VERSION = 1;
export const PQXDH_STATE_VERSION = 2;

const FIXED_SIZE = MAGIC.length + 2 + ASSOCIATED_DATA_SIZE + 6 * KEY_SIZE + 1 + 4 * 4 + 4;
const SKIPPED_SIZE = KEY_SIZE + 4 + 4 + KEY_SIZE;

/** Layout in docs/protocol.md §11 ("Session state"). */
export function serializeState(state: SessionState): Uint8Array {
  const size = FIXED_SIZE + state.preKeyFields.length + state.mkSkipped.length * SKIPPED_SIZE;
  const writer = new ByteWriter(size)
    .raw(MAGIC)
    .u8(isPostQuantum(state.preKeyFields) ? PQXDH_STATE_VERSION : STATE_VERSION)
    .u8(state.role === "initiator" ? 0 : 1)
    .raw(state.ad)
    .raw(state.preKeyFields)
    .raw(state.rk)
    .raw(state.dhs.privateKey)
    .raw(state.dhs.publicKey)
    .raw(state.dhr)
    .raw(state.cks)
    .u8(state.ckr ? 1 : 0)
    .raw(state.ckr ?? new Uint8Array(KEY_SIZE))
    .u32(state.ns)
    .u32(state.nr)
    .u32(state.pn)
    .u32(state.step)
    .u32(state.mkSkipped.length);
  for (const key of state.mkSkipped) writer.raw(key.dh).u32(key.n).u32(key.step).raw(key.mk);
  return writer.bytes;
}

/** Strict: anything but what serializeState writes is RATCHET_MALFORMED_STATE. */
export function deserializeState(bytes: Uint8Array): SessionState {
  const reader = new ByteReader(bytes, malformed);
  const magic = reader.raw(MAGIC.length);
  if (!magic.every((byte, i) => byte === MAGIC[i])) throw malformed("not a ratchet session");
  const version = reader.u8();
  const preKeySize = PREKEY_FIELDS_BY_VERSION.get(version);
  if (preKeySize === undefined) throw malformed(`unknown version ${version}`);
  const role = reader.u8();
  if (role > 1) throw malformed("role is neither 0 nor 1");
  const ad = reader.raw(ASSOCIATED_DATA_SIZE);
  const preKeyFields = reader.raw(preKeySize);
  decodePreKeyFields(preKeyFields, malformed);
  const rk = reader.raw(KEY_SIZE);
  const dhs = { privateKey: reader.raw(KEY_SIZE), publicKey: reader.raw(KEY_SIZE) };
  const dhr = reader.raw(KEY_SIZE);
  const cks = reader.raw(KEY_SIZE);
  const hasCkr = reader.u8();
  const ckr = reader.raw(KEY_SIZE);
  if (hasCkr > 1) throw malformed("receiving chain flag is neither 0 nor 1");
  if (hasCkr === 0 && ckr.some((byte) => byte !== 0)) throw malformed("stray receiving chain key");
  const ns = reader.u32();
  const nr = reader.u32();
  const pn = reader.u32();
  const step = reader.u32();
  const count = reader.u32();
  if (count > MAX_SKIPPED_KEYS) throw malformed(`${count} skipped keys`);
  const mkSkipped = [];
  for (let i = 0; i < count; i++) {
    const key = {
      dh: reader.raw(KEY_SIZE),
      n: reader.u32(),
      step: reader.u32(),
      mk: reader.raw(KEY_SIZE),
    };
    if (key.step > step || step - key.step > MAX_SKIPPED_AGE) throw malformed("skipped key age");
    mkSkipped.push(key);
  }
  reader.end();
  return {
    role: role === 0 ? "initiator" : "responder",
    ad,
    preKeyFields,
    rk,
    dhs,
    dhr,
    cks,
    ckr: hasCkr ? ckr : null,
    ns,
    nr,
    pn,
    step,
    mkSkipped,
  };
}

const PREKEY_FIELDS_BY_VERSION = new Map([
  [STATE_VERSION, PREKEY_FIELDS_SIZE],
  [PQXDH_STATE_VERSION, PQXDH_PREKEY_FIELDS_SIZE],
]);

function malformed(reason: string): RatchetError {
  return new RatchetError("RATCHET_MALFORMED_STATE", `malformed session state: ${reason}`);
}
