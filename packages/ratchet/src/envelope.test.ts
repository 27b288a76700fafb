import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeEnvelope,
  encodeEnvelopePrefix,
  encodePreKeyFields,
  MESSAGE_PREFIX_SIZE,
  PREKEY_FIELDS_SIZE,
  PREKEY_PREFIX_SIZE,
  type PreKeyFields,
} from "./envelope.js";
import { RatchetError } from "./errors.js";

const key = fc.uint8Array({ minLength: 32, maxLength: 32 });
const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
const messageNumber = fc.integer({ min: 0, max: 0xffff_fffe });
const keyId = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const header = fc.record({ dh: key, pn: u32, n: messageNumber });
const preKeyFields: fc.Arbitrary<PreKeyFields> = fc.record({
  identitySigningKey: key,
  identityDHKey: key,
  baseKey: key,
  signedPreKeyId: keyId,
  oneTimePreKeyId: fc.option(keyId),
});
const nonce = fc.uint8Array({ minLength: 12, maxLength: 12 });
const ciphertext = fc.uint8Array({ minLength: 16, maxLength: 64 });
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]));

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof RatchetError) return error.code;
    throw error;
  }
  return undefined;
}

describe("envelope layout", () => {
  it("normal form: 0x02 0x01 dh pn n nonce ciphertext, decoded back", () => {
    fc.assert(
      fc.property(header, nonce, ciphertext, (h, iv, ct) => {
        const prefix = encodeEnvelopePrefix(null, h);
        expect(prefix.length).toBe(MESSAGE_PREFIX_SIZE);
        expect([...prefix.subarray(0, 2)]).toEqual([0x02, 0x01]);
        expect(prefix.subarray(2, 34)).toEqual(h.dh);
        const view = new DataView(prefix.buffer);
        expect([view.getUint32(34), view.getUint32(38)]).toEqual([h.pn, h.n]);
        const decoded = decodeEnvelope(concat(prefix, iv, ct));
        expect(decoded).toEqual({
          header: h,
          preKey: null,
          preKeyBytes: null,
          prefix,
          nonce: iv,
          ciphertext: ct,
        });
      }),
    );
  });

  it("prekey form: 0x02 0x02 X3DH fields, then the normal header, decoded back", () => {
    fc.assert(
      fc.property(preKeyFields, header, nonce, ciphertext, (fields, h, iv, ct) => {
        const preKeyBytes = encodePreKeyFields(fields);
        expect(preKeyBytes.length).toBe(PREKEY_FIELDS_SIZE);
        const prefix = encodeEnvelopePrefix(preKeyBytes, h);
        expect(prefix.length).toBe(PREKEY_PREFIX_SIZE);
        expect([...prefix.subarray(0, 2)]).toEqual([0x02, 0x02]);
        expect(prefix.subarray(2, 34)).toEqual(fields.identitySigningKey);
        expect(prefix.subarray(34, 66)).toEqual(fields.identityDHKey);
        expect(prefix.subarray(66, 98)).toEqual(fields.baseKey);
        expect(prefix[106]).toBe(fields.oneTimePreKeyId === null ? 0 : 1);
        expect(prefix.subarray(115, 147)).toEqual(h.dh);
        const decoded = decodeEnvelope(concat(prefix, iv, ct));
        expect(decoded.preKey).toEqual(fields);
        expect(decoded.preKeyBytes).toEqual(preKeyBytes);
        expect(decoded.header).toEqual(h);
        expect(decoded.nonce).toEqual(iv);
        expect(decoded.ciphertext).toEqual(ct);
      }),
    );
  });

  it("writes ids as u64be", () => {
    const fields = {
      identitySigningKey: new Uint8Array(32),
      identityDHKey: new Uint8Array(32),
      baseKey: new Uint8Array(32),
      signedPreKeyId: 2 ** 40 + 5,
      oneTimePreKeyId: 7,
    };
    const bytes = encodePreKeyFields(fields);
    expect([...bytes.subarray(96)]).toEqual([0, 0, 1, 0, 0, 0, 0, 5, 1, 0, 0, 0, 0, 0, 0, 0, 7]);
  });
});

describe("decodeEnvelope refuses", () => {
  const valid = concat(
    encodeEnvelopePrefix(
      encodePreKeyFields({
        identitySigningKey: new Uint8Array(32).fill(1),
        identityDHKey: new Uint8Array(32).fill(2),
        baseKey: new Uint8Array(32).fill(3),
        signedPreKeyId: 1,
        oneTimePreKeyId: null,
      }),
      { dh: new Uint8Array(32).fill(4), pn: 0, n: 0 },
    ),
    new Uint8Array(12),
    new Uint8Array(16),
  );

  it("every truncation shorter than prefix, nonce and tag", () => {
    for (let length = 0; length < valid.length; length++) {
      expect(
        codeOf(() => decodeEnvelope(valid.slice(0, length))),
        `length ${length}`,
      ).toBe("RATCHET_MALFORMED_ENVELOPE");
    }
  });

  it("another type byte, and an unknown kind", () => {
    for (let type = 0; type < 256; type++) {
      if (type === 0x02) continue;
      const bytes = valid.slice();
      bytes[0] = type;
      expect(codeOf(() => decodeEnvelope(bytes))).toBe("RATCHET_MALFORMED_ENVELOPE");
    }
    for (const kind of [0x00, 0x04, 0x11, 0x81, 0xff]) {
      const bytes = valid.slice();
      bytes[1] = kind;
      expect(codeOf(() => decodeEnvelope(bytes))).toBe("RATCHET_UNSUPPORTED_VERSION");
    }
  });

  it("a one-time prekey flag other than 0 or 1, or an id without its flag", () => {
    const flag = valid.slice();
    flag[106] = 2;
    expect(codeOf(() => decodeEnvelope(flag))).toBe("RATCHET_MALFORMED_ENVELOPE");
    const stray = valid.slice();
    stray[114] = 9;
    expect(codeOf(() => decodeEnvelope(stray))).toBe("RATCHET_MALFORMED_ENVELOPE");
  });

  it("message number 2^32 - 1, which no sender reaches", () => {
    const bytes = valid.slice();
    bytes.set([0xff, 0xff, 0xff, 0xff], 151);
    expect(codeOf(() => decodeEnvelope(bytes))).toBe("RATCHET_MALFORMED_ENVELOPE");
    bytes[154] = 0xfe;
    expect(decodeEnvelope(bytes).header.n).toBe(0xffff_fffe);
  });

  it("an id above 2^53 - 1", () => {
    const bytes = valid.slice();
    bytes.set([0x00, 0x20, 0, 0, 0, 0, 0, 0], 98);
    expect(codeOf(() => decodeEnvelope(bytes))).toBe("RATCHET_MALFORMED_ENVELOPE");
    bytes.set([0x00, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 98);
    expect(decodeEnvelope(bytes).preKey?.signedPreKeyId).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("random bytes with nothing but a RatchetError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          decodeEnvelope(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(RatchetError);
        }
      }),
    );
  });
});
