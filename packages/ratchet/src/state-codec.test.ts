import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RatchetError } from "./errors.js";
import { Session } from "./session.js";
import { deserializeState, serializeState } from "./state-codec.js";
import { codeOf, establishedPair, utf8 } from "./test-support/sessions.js";

const { alice, bob } = await establishedPair("codec");
alice.encrypt(utf8.encode("skipped"));
bob.decrypt(alice.encrypt(utf8.encode("so Bob keeps one skipped key")));
const bytes = bob.serialize();

describe("session state serialization", () => {
  it("round-trips, and a restored session carries on", () => {
    expect(serializeState(deserializeState(bytes))).toEqual(bytes);
    expect(deserializeState(bytes).mkSkipped).toHaveLength(1);
    const restored = Session.deserialize(bytes);
    const envelope = alice.encrypt(utf8.encode("after restore"));
    expect(restored.decrypt(envelope)).toEqual(utf8.encode("after restore"));
    expect(bob.decrypt(envelope)).toEqual(utf8.encode("after restore"));
    expect(restored.serialize()).toEqual(bob.serialize());
    expect(Session.deserialize(alice.serialize()).serialize()).toEqual(alice.serialize());
  });

  it("starts with the magic 'svcR' and version 1", () => {
    expect([...bytes.subarray(0, 5)]).toEqual([0x73, 0x76, 0x63, 0x52, 0x01]);
  });

  it("refuses every truncation and any trailing byte", async () => {
    for (let length = 0; length < bytes.length; length++) {
      expect(await codeOf(() => Session.deserialize(bytes.slice(0, length)))).toBe(
        "RATCHET_MALFORMED_STATE",
      );
    }
    expect(await codeOf(() => Session.deserialize(Uint8Array.of(...bytes, 0)))).toBe(
      "RATCHET_MALFORMED_STATE",
    );
  });

  it("refuses a wrong magic, version, role, flag, stray key or too many skipped keys", async () => {
    const ckrFlag = 4 + 2 + 128 + 113 + 5 * 32;
    const count = ckrFlag + 1 + 32 + 16;
    const patches: [number, number][] = [
      [0, 0x53], // magic
      [4, 2], // version
      [5, 2], // role
      [6 + 128 + 104, 2], // one-time prekey flag of the stored X3DH fields
      [ckrFlag, 2],
      [count, 0xff], // count far above MAX_SKIPPED_KEYS
      [count + 3, 2], // count 2 with one key stored
      [count + 4 + 32 + 4 + 3, 0xff], // a skipped key's step after the state's
    ];
    for (const [offset, value] of patches) {
      const bad = bytes.slice();
      bad[offset] = value;
      expect(await codeOf(() => Session.deserialize(bad)), `offset ${offset}`).toBe(
        "RATCHET_MALFORMED_STATE",
      );
    }
    const initiator = alice.serialize();
    const stray = initiator.slice();
    stray[ckrFlag] = 0;
    expect(await codeOf(() => Session.deserialize(stray))).toBe("RATCHET_MALFORMED_STATE");
  });

  it("refuses random bytes with nothing but a RatchetError", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 1200 }), (garbage) => {
        expect(() => Session.deserialize(garbage)).toThrow(RatchetError);
      }),
    );
  });
});
