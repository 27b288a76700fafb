import { sha256 } from "@noble/hashes/sha2.js";
import { ed25519KeyPairFromSeed } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../limits.js";
import { accountOf } from "./account.js";
import {
  checkDeviceListStep,
  type DeviceList,
  type DeviceListFields,
  deviceListHash,
  deviceListMessage,
  firstDeviceList,
  signDeviceList,
} from "./device-list.js";
import { deviceListFromJson, deviceListToJson } from "./device-list-json.js";
import type { DeviceListErrorCode } from "./errors.js";

const utf8 = new TextEncoder();
const device = (n: number) => {
  const seed = sha256(utf8.encode(`device-list-test:${n}`));
  return {
    seed,
    entry: {
      address: `alice@example.org:${n}`,
      identitySigningKey: ed25519KeyPairFromSeed(seed).publicKey,
    },
  };
};
const [one, two, three] = [device(1), device(2), device(3)];

/** Version 1 (device 1), 2 (devices 1 and 2, signed by 1), 3 (device 2 alone, signed by 2). */
function chain(): DeviceList[] {
  const v1 = firstDeviceList(one.entry, one.seed);
  const v2 = signDeviceList(
    {
      account: "alice@example.org",
      version: 2,
      previousHash: deviceListHash(v1),
      devices: [one.entry, two.entry],
      signer: one.entry.address,
    },
    one.seed,
  );
  const v3 = signDeviceList(
    {
      ...v2,
      version: 3,
      previousHash: deviceListHash(v2),
      devices: [two.entry],
      signer: two.entry.address,
    },
    two.seed,
  );
  return [v1, v2, v3];
}

function refusal(previous: DeviceList | undefined, next: DeviceList): DeviceListErrorCode | "ok" {
  try {
    checkDeviceListStep(previous, next);
    return "ok";
  } catch (error) {
    return (error as { code: DeviceListErrorCode }).code;
  }
}

describe("accountOf", () => {
  it("drops the last :<device> part, and gives none without one", () => {
    expect(accountOf("alice@example.org:2")).toBe("alice@example.org");
    expect(accountOf("alice@example.org:1:2")).toBe("alice@example.org:1");
    expect(accountOf("alice@example.org")).toBeUndefined();
    expect(accountOf("alice@example.org:")).toBeUndefined();
  });
});

describe("deviceListMessage", () => {
  it("lays out domain, account, version, previousHash, devices and signer", () => {
    const [v1] = chain();
    const message = deviceListMessage(v1 as DeviceList);
    const account = utf8.encode("alice@example.org");
    const address = utf8.encode("alice@example.org:1");
    expect(message).toEqual(
      Uint8Array.from([
        ...utf8.encode("svc-device-list-v1\0"),
        0,
        account.length,
        ...account,
        ...[0, 0, 0, 0, 0, 0, 0, 1],
        ...new Uint8Array(32),
        1,
        0,
        address.length,
        ...address,
        ...one.entry.identitySigningKey,
        0,
        address.length,
        ...address,
      ]),
    );
  });

  it("refuses what is not a list as DEVICE_LIST_MALFORMED", () => {
    const [, v2] = chain() as [DeviceList, DeviceList];
    const bad: Array<Partial<DeviceListFields>> = [
      { account: "Alice@example.org\u0301" },
      { version: 0 },
      { version: 1.5 },
      { previousHash: new Uint8Array(31) },
      { devices: [] },
      { devices: [two.entry, one.entry] },
      { devices: [one.entry, one.entry] },
      { devices: [{ ...one.entry, address: "bob@example.org:1" }] },
      { devices: [{ ...one.entry, identitySigningKey: new Uint8Array(33) }] },
      {
        devices: Array.from({ length: LIMITS.devicesPerAccount + 1 }, (_, i) => ({
          ...one.entry,
          address: `alice@example.org:${String(i).padStart(2, "0")}`,
        })),
      },
      { signer: "bob@example.org:1" },
    ];
    for (const change of bad) {
      expect(() => deviceListMessage({ ...v2, ...change })).toThrow(
        expect.objectContaining({ code: "DEVICE_LIST_MALFORMED" }),
      );
    }
  });
});

describe("checkDeviceListStep", () => {
  it("accepts a chain: the first device alone, a device added, the first one removed", () => {
    const [v1, v2, v3] = chain() as [DeviceList, DeviceList, DeviceList];
    expect(refusal(undefined, v1)).toBe("ok");
    expect(refusal(v1, v2)).toBe("ok");
    expect(refusal(v2, v3)).toBe("ok");
  });

  it("refuses a first version with two devices, another signer or a non-zero previousHash", () => {
    const [v1, v2] = chain() as [DeviceList, DeviceList];
    expect(refusal(undefined, v2)).toBe("DEVICE_LIST_BAD_FIRST_VERSION");
    const signedByOther = signDeviceList({ ...v1, signer: "alice@example.org:2" }, two.seed);
    expect(refusal(undefined, signedByOther)).toBe("DEVICE_LIST_SIGNER_NOT_LISTED");
    const withHash = signDeviceList({ ...v1, previousHash: new Uint8Array(32).fill(1) }, one.seed);
    expect(refusal(undefined, withHash)).toBe("DEVICE_LIST_BAD_FIRST_VERSION");
  });

  it("refuses a ghost device: a list signed by a device the previous version does not name", () => {
    const [v1] = chain() as [DeviceList];
    const ghost = signDeviceList(
      {
        account: "alice@example.org",
        version: 2,
        previousHash: deviceListHash(v1),
        devices: [one.entry, three.entry],
        signer: three.entry.address,
      },
      three.seed,
    );
    expect(refusal(v1, ghost)).toBe("DEVICE_LIST_SIGNER_NOT_LISTED");
    // Naming a listed signer does not help without its key.
    const forged = { ...ghost, signer: one.entry.address };
    expect(refusal(v1, signDeviceList(forged, three.seed))).toBe("DEVICE_LIST_BAD_SIGNATURE");
  });

  it("refuses a step that skips or repeats a version, forks, changes account or nothing", () => {
    const [v1, v2, v3] = chain() as [DeviceList, DeviceList, DeviceList];
    expect(refusal(v1, v3)).toBe("DEVICE_LIST_BROKEN_CHAIN");
    expect(refusal(v2, v2)).toBe("DEVICE_LIST_BROKEN_CHAIN");
    const fork = signDeviceList({ ...v2, previousHash: new Uint8Array(32).fill(7) }, one.seed);
    expect(refusal(v1, fork)).toBe("DEVICE_LIST_BROKEN_CHAIN");
    const same = signDeviceList({ ...v1, version: 2, previousHash: deviceListHash(v1) }, one.seed);
    expect(refusal(v1, same)).toBe("DEVICE_LIST_UNCHANGED");
    const rekeyed = signDeviceList(
      { ...same, devices: [{ ...one.entry, identitySigningKey: three.entry.identitySigningKey }] },
      one.seed,
    );
    expect(refusal(v1, rekeyed)).toBe("ok");
  });

  it("refuses any changed byte of the signed list", () => {
    const [v1, v2] = chain() as [DeviceList, DeviceList];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 63 }), fc.integer({ min: 0, max: 7 }), (at, bit) => {
        const signature = v2.signature.slice();
        signature[at] = (signature[at] as number) ^ (1 << bit);
        expect(refusal(v1, { ...v2, signature })).not.toBe("ok");
      }),
    );
  });
});

describe("device list JSON", () => {
  it("round-trips, and refuses base64 of the wrong size as DEVICE_LIST_MALFORMED", () => {
    const [, v2] = chain() as [DeviceList, DeviceList];
    const json = deviceListToJson(v2);
    expect(deviceListFromJson(json)).toEqual(v2);
    expect(() => deviceListFromJson({ ...json, signature: "AAAA" })).toThrow(
      expect.objectContaining({ code: "DEVICE_LIST_MALFORMED" }),
    );
  });
});
