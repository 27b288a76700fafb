import { sha256 } from "@noble/hashes/sha2.js";
import { ed25519KeyPairFromSeed } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deviceListMessage, firstDeviceList, signDeviceList } from "./device-list.js";
import { parseDeviceListMessage } from "./device-list-parse.js";
import { DeviceListError } from "./errors.js";

const utf8 = new TextEncoder();
const seedOf = (n: number) => sha256(utf8.encode(`device-list-parse-test:${n}`));
const entry = (n: number) => ({
  address: `bob@example.org:${n}`,
  identitySigningKey: ed25519KeyPairFromSeed(seedOf(n)).publicKey,
});
const first = firstDeviceList(entry(1), seedOf(1));
const second = signDeviceList(
  {
    account: "bob@example.org",
    version: 2,
    previousHash: sha256(deviceListMessage(first)),
    devices: [entry(1), entry(2), entry(3)],
    signer: "bob@example.org:1",
  },
  seedOf(1),
);

describe("parseDeviceListMessage", () => {
  it("gives back the fields deviceListMessage wrote", () => {
    for (const list of [first, second]) {
      const { signature: _, ...fields } = list;
      expect(parseDeviceListMessage(deviceListMessage(list))).toEqual(fields);
    }
  });

  it("refuses every cut, extended or changed message as DEVICE_LIST_MALFORMED, never anything else", () => {
    const message = deviceListMessage(second);
    const malformed = (bytes: Uint8Array) => {
      try {
        parseDeviceListMessage(bytes);
        return false;
      } catch (error) {
        expect(error).toBeInstanceOf(DeviceListError);
        expect((error as DeviceListError).code).toBe("DEVICE_LIST_MALFORMED");
        return true;
      }
    };
    for (let length = 0; length < message.length; length++) {
      expect(malformed(message.subarray(0, length))).toBe(true);
    }
    expect(malformed(new Uint8Array([...message, 0]))).toBe(true);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
        try {
          parseDeviceListMessage(bytes);
        } catch (error) {
          expect((error as DeviceListError).code).toBe("DEVICE_LIST_MALFORMED");
        }
      }),
    );
    fc.assert(
      fc.property(fc.nat(message.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const changed = message.slice();
        changed[at] = (changed[at] as number) ^ flip;
        try {
          const fields = parseDeviceListMessage(changed);
          // A change that still parses is another list, written back byte for byte.
          expect(deviceListMessage(fields)).toEqual(changed);
        } catch (error) {
          expect((error as DeviceListError).code).toBe("DEVICE_LIST_MALFORMED");
        }
      }),
    );
  });
});
