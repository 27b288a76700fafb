import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeEnvelope,
  encodeEnvelopePrefix,
  encodePreKeyFields,
  PQXDH_PREKEY_FIELDS_SIZE,
  PQXDH_PREKEY_PREFIX_SIZE,
  type PreKeyFields,
} from "./envelope.js";
import { RatchetError } from "./errors.js";

const key = fc.uint8Array({ minLength: 32, maxLength: 32 });
const keyId = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
const header = fc.record({
  dh: key,
  pn: fc.integer({ min: 0, max: 0xffff_ffff }),
  n: fc.integer({ min: 0, max: 0xffff_fffe }),
});
const pqxdhFields: fc.Arbitrary<PreKeyFields> = fc.record({
  identitySigningKey: key,
  identityDHKey: key,
  baseKey: key,
  signedPreKeyId: keyId,
  oneTimePreKeyId: fc.option(keyId),
  kemPreKey: fc.record({
    keyId,
    lastResort: fc.boolean(),
    ciphertext: fc.uint8Array({ minLength: 1568, maxLength: 1568 }),
  }),
});
const nonce = fc.uint8Array({ minLength: 12, maxLength: 12 });
const ciphertext = fc.uint8Array({ minLength: 16, maxLength: 64 });
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((part) => [...part]));
/** Offset of the KEM prekey id: type, kind, then the 113 bytes of X3DH fields. */
const KEM_ID = 2 + 113;

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof RatchetError) return error.code;
    throw error;
  }
  return undefined;
}

describe("PQXDH prekey form (kind 0x03)", () => {
  it("is 0x02 0x03, the X3DH fields, KEM id (u64be), last-resort flag, ciphertext, header", () => {
    fc.assert(
      fc.property(pqxdhFields, header, nonce, ciphertext, (fields, h, iv, ct) => {
        const preKeyBytes = encodePreKeyFields(fields);
        expect(preKeyBytes.length).toBe(PQXDH_PREKEY_FIELDS_SIZE);
        const prefix = encodeEnvelopePrefix(preKeyBytes, h);
        expect(prefix.length).toBe(PQXDH_PREKEY_PREFIX_SIZE);
        expect([...prefix.subarray(0, 2)]).toEqual([0x02, 0x03]);
        const { oneTimePreKeyId, kemPreKey: kem, ...x3dh } = fields;
        expect(prefix.subarray(2, KEM_ID)).toEqual(
          encodePreKeyFields({ ...x3dh, oneTimePreKeyId }),
        );
        const view = new DataView(prefix.buffer);
        const id = view.getUint32(KEM_ID) * 2 ** 32 + view.getUint32(KEM_ID + 4);
        expect(id).toBe(kem?.keyId);
        expect(prefix[KEM_ID + 8]).toBe(kem?.lastResort ? 1 : 0);
        expect(prefix.subarray(KEM_ID + 9, KEM_ID + 9 + 1568)).toEqual(kem?.ciphertext);
        expect(prefix.subarray(KEM_ID + 9 + 1568, KEM_ID + 9 + 1568 + 32)).toEqual(h.dh);
        const decoded = decodeEnvelope(concat(prefix, iv, ct));
        expect(decoded.preKey).toEqual(fields);
        expect(decoded.preKeyBytes).toEqual(preKeyBytes);
        expect(decoded.prefix).toEqual(prefix);
        expect(decoded.header).toEqual(h);
        expect(decoded.nonce).toEqual(iv);
        expect(decoded.ciphertext).toEqual(ct);
      }),
      { numRuns: 50 },
    );
  });

  const valid = concat(
    encodeEnvelopePrefix(
      encodePreKeyFields({
        identitySigningKey: new Uint8Array(32).fill(1),
        identityDHKey: new Uint8Array(32).fill(2),
        baseKey: new Uint8Array(32).fill(3),
        signedPreKeyId: 1,
        oneTimePreKeyId: null,
        kemPreKey: { keyId: 7, lastResort: false, ciphertext: new Uint8Array(1568).fill(5) },
      }),
      { dh: new Uint8Array(32).fill(4), pn: 0, n: 0 },
    ),
    new Uint8Array(12),
    new Uint8Array(16),
  );

  it("refuses every truncation shorter than prefix, nonce and tag", () => {
    for (let length = 0; length < valid.length; length++) {
      expect(
        codeOf(() => decodeEnvelope(valid.slice(0, length))),
        `length ${length}`,
      ).toBe("RATCHET_MALFORMED_ENVELOPE");
    }
  });

  it("refuses a last-resort flag other than 0 or 1, and a KEM id above 2^53 - 1", () => {
    for (const flag of [2, 0x80, 0xff]) {
      const bytes = valid.slice();
      bytes[KEM_ID + 8] = flag;
      expect(codeOf(() => decodeEnvelope(bytes))).toBe("RATCHET_MALFORMED_ENVELOPE");
    }
    const bytes = valid.slice();
    bytes[KEM_ID + 1] = 0x20;
    expect(codeOf(() => decodeEnvelope(bytes))).toBe("RATCHET_MALFORMED_ENVELOPE");
    bytes.set([0x00, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], KEM_ID);
    expect(decodeEnvelope(bytes).preKey?.kemPreKey?.keyId).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("reads a classic prekey envelope relabelled 0x03 as malformed, not as PQXDH", () => {
    const classic = valid.slice(0, 2 + 113);
    const relabelled = concat(classic, new Uint8Array(40 + 12 + 16));
    expect(codeOf(() => decodeEnvelope(relabelled))).toBe("RATCHET_MALFORMED_ENVELOPE");
  });

  it("throws nothing but a RatchetError on random bytes after 0x02 0x03", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (tail) => {
        try {
          decodeEnvelope(concat(Uint8Array.of(0x02, 0x03), tail));
        } catch (error) {
          expect(error).toBeInstanceOf(RatchetError);
        }
      }),
    );
  });

  it("throws nothing but a RatchetError on random mutations of a valid envelope", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(valid.length - 1), fc.nat(255)), { maxLength: 8 }),
        (patches) => {
          const bytes = valid.slice();
          for (const [offset, value] of patches) bytes[offset] = value;
          try {
            decodeEnvelope(bytes);
          } catch (error) {
            expect(error).toBeInstanceOf(RatchetError);
          }
        },
      ),
    );
  });
});
