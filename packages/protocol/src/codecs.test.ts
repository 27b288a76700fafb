import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import spec from "../../canonical/src/fixtures/spec-vectors.json" with { type: "json" };
import { decodeBundle, encodeBundle } from "./bundle.js";
import { parseDecimalU64, parseSafeDecimal } from "./decimal.js";
import { msgIdOf, RATCHET_ENVELOPE_TYPE } from "./envelope.js";
import { SvcError } from "./errors.js";
import { parseRequest } from "./parse.js";
import { DepositBody } from "./schemas/inbox.js";
import { KeysRegisterBody } from "./schemas/keys.js";
import { ControlMessage, ResumeState } from "./transfer/schemas.js";
import { encodeStreamId, isStreamId, newStreamId } from "./transfer/stream-id.js";

describe("decimal u64", () => {
  it("parses decimals without leading zeros up to 2^64 - 1", () => {
    expect(parseDecimalU64("0")).toBe(0n);
    expect(parseDecimalU64("18446744073709551615")).toBe(2n ** 64n - 1n);
    for (const bad of ["", "01", "-1", "1.0", " 1", "18446744073709551616", "1e3"]) {
      expect(parseDecimalU64(bad)).toBeUndefined();
    }
  });

  it("parses safe decimals and names the parameter of a bad one", () => {
    expect(parseSafeDecimal("9007199254740991", "since")).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => parseSafeDecimal("9007199254740992", "since")).toThrow(/since/);
    expect(() => parseSafeDecimal("007", "since")).toThrow(SvcError);
  });
});

describe("StreamId", () => {
  it("is 22 base64url characters of 16 bytes, as in the transfer vector", () => {
    expect(isStreamId(spec.transfer.streamId)).toBe(true);
    expect(isStreamId(newStreamId())).toBe(true);
    expect(encodeStreamId(new Uint8Array(16).fill(0xff))).toBe("_____________________w");
  });

  it("refuses wrong lengths, alphabets and non-zero spare bits", () => {
    for (const bad of ["", "a".repeat(21), "a".repeat(23), "+".repeat(22), "_".repeat(22)]) {
      expect(isStreamId(bad)).toBe(false);
    }
  });
});

describe("envelope rules", () => {
  it("names a blob by the lower-hex SHA-256 of its ciphertext", () => {
    const ciphertext = Uint8Array.from(atob(spec.signedBodies.deposit.body.ciphertext), (c) =>
      c.charCodeAt(0),
    );
    expect(ciphertext[0]).toBe(RATCHET_ENVELOPE_TYPE);
    expect(msgIdOf(ciphertext)).toBe(spec.signedBodies.deposit.body.msgId);
  });
});

describe("schemas", () => {
  it("accept the spec's signed bodies", () => {
    expect(parseRequest(KeysRegisterBody, spec.signedBodies.register.body).address).toBe(
      "alice@example.com:1",
    );
    expect(parseRequest(DepositBody, spec.signedBodies.deposit.body).msgId).toMatch(/^745c/);
  });

  it("refuse unknown members and name the bad field", () => {
    const body = { ...spec.signedBodies.deposit.body, extra: 1 };
    expect(() => parseRequest(DepositBody, body)).toThrow(SvcError);
    const badMsgId = { ...spec.signedBodies.deposit.body, msgId: "ABC" };
    expect(() => parseRequest(DepositBody, badMsgId)).toThrow(/^msgId: /);
  });

  it("only ever refuse arbitrary JSON with a 400 SvcError", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        for (const schema of [KeysRegisterBody, DepositBody, ControlMessage, ResumeState]) {
          try {
            parseRequest(schema, value);
          } catch (error) {
            expect(error).toBeInstanceOf(SvcError);
            expect((error as SvcError).status).toBe(400);
          }
        }
      }),
    );
  });

  it("read every control message type", () => {
    const streamId = spec.transfer.streamId;
    expect(v.parse(ControlMessage, { type: "pause", streamId }).type).toBe("pause");
    expect(v.safeParse(ControlMessage, { type: "stop", streamId }).success).toBe(false);
  });
});

describe("bundle", () => {
  const keys = (fill: number, length = 32) => new Uint8Array(length).fill(fill);
  const bundle = {
    identitySigningKey: keys(1),
    identityDHKey: keys(2),
    signedPreKey: { keyId: 1, publicKey: keys(3), signature: keys(4, 64) },
  };

  it("round-trips with and without a one-time prekey", () => {
    expect(decodeBundle(encodeBundle(bundle))).toEqual(bundle);
    const withOtk = { ...bundle, oneTimePreKey: { keyId: 9, publicKey: keys(5) } };
    expect(decodeBundle(encodeBundle(withOtk))).toEqual(withOtk);
    expect(encodeBundle(bundle)).not.toHaveProperty("oneTimePreKey");
  });

  it("refuses a key of the wrong length with SVC_INVALID_KEY", () => {
    const json = { ...encodeBundle(bundle), identityDHKey: "AAAA" };
    expect(() => decodeBundle(json)).toThrow(expect.objectContaining({ code: "SVC_INVALID_KEY" }));
  });
});
