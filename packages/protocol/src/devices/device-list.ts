import { sha256 } from "@noble/hashes/sha2.js";
import {
  concatBytes,
  type Ed25519Verifier,
  ed25519Sign,
  equalBytes,
  isBytes,
  isValidAddress,
  normalizeAddress,
  portableEd25519,
  u64be,
} from "@svc/canonical";
import { LIMITS } from "../limits.js";
import { accountOf } from "./account.js";
import { DeviceListError } from "./errors.js";

/** Domain separation of a device list's signed message: `svc-device-list-v1` and 0x00. */
export const DEVICE_LIST_DOMAIN: Uint8Array = new TextEncoder().encode("svc-device-list-v1\0");

const HASH_SIZE = 32;
const KEY_SIZE = 32;
const SIGNATURE_SIZE = 64;
const utf8 = new TextEncoder();

/** One device of an account: its address and the identity signing key it registered. */
export interface DeviceEntry {
  address: string;
  identitySigningKey: Uint8Array;
}

/** What a device signs: one version of its account's list. */
export interface DeviceListFields {
  account: string;
  /** 1 for the first list of the account, then the previous version + 1. */
  version: number;
  /** SHA-256 of the previous version's message; 32 zero bytes at version 1. */
  previousHash: Uint8Array;
  /** Sorted by address (their bytes), no two alike, each of `account`. */
  devices: DeviceEntry[];
  /** The signing device: on the previous version's list (version 1: its one device). */
  signer: string;
}

export interface DeviceList extends DeviceListFields {
  /** Ed25519 by the signer's identity signing key over {@link deviceListMessage}. */
  signature: Uint8Array;
}

/**
 * The signed bytes: DEVICE_LIST_DOMAIN || u16be len || account || u64be version ||
 * previousHash (32) || u8 count || count x (u16be len || address || identitySigningKey (32)) ||
 * u16be len || signer. A list that breaks a rule of its own (sizes, order, foreign devices) is
 * DEVICE_LIST_MALFORMED.
 */
export function deviceListMessage(fields: DeviceListFields): Uint8Array {
  checkShape(fields);
  const parts: Uint8Array[] = [
    DEVICE_LIST_DOMAIN,
    lengthPrefixed(fields.account),
    u64be(fields.version),
    fields.previousHash,
    Uint8Array.of(fields.devices.length),
  ];
  for (const device of fields.devices) {
    parts.push(lengthPrefixed(device.address), device.identitySigningKey);
  }
  parts.push(lengthPrefixed(fields.signer));
  return concatBytes(...parts);
}

/** SHA-256 of the list's message: the next version's previousHash, and what the log commits. */
export function deviceListHash(fields: DeviceListFields): Uint8Array {
  return sha256(deviceListMessage(fields));
}

/** `fields` signed by the signer's identity signing key (its 32-byte Ed25519 seed). */
export function signDeviceList(fields: DeviceListFields, seed: Uint8Array): DeviceList {
  return { ...fields, signature: ed25519Sign(deviceListMessage(fields), seed) };
}

/** The first version of `account`'s list: `device` alone, signed by it. */
export function firstDeviceList(device: DeviceEntry, seed: Uint8Array): DeviceList {
  const account = accountOf(device.address);
  if (account === undefined) {
    throw malformed(`${device.address} has no device part, so no account`);
  }
  return signDeviceList(
    {
      account,
      version: 1,
      previousHash: new Uint8Array(HASH_SIZE),
      devices: [device],
      signer: device.address,
    },
    seed,
  );
}

/**
 * Checks that `next` is a valid successor of `previous` (undefined: that `next` is a valid
 * version 1): shape, chain (account, version + 1, previousHash), a signer listed before, its
 * signature under the key the previous version gives it, and a change. Throws DeviceListError.
 */
export function checkDeviceListStep(
  previous: DeviceList | undefined,
  next: DeviceList,
  verifier: Ed25519Verifier = portableEd25519,
): void {
  const message = deviceListMessage(next);
  if (!isBytes(next.signature) || next.signature.length !== SIGNATURE_SIZE) {
    throw malformed(`signature must be ${SIGNATURE_SIZE} bytes`);
  }
  let signerKey: Uint8Array | undefined;
  if (previous === undefined) {
    const [only] = next.devices;
    if (next.version !== 1 || next.devices.length !== 1 || !isZero(next.previousHash)) {
      throw new DeviceListError(
        "DEVICE_LIST_BAD_FIRST_VERSION",
        "the first list of an account is version 1, one device, and a zero previousHash",
      );
    }
    if (only?.address !== next.signer) {
      throw new DeviceListError(
        "DEVICE_LIST_SIGNER_NOT_LISTED",
        "the first list of an account is signed by its one device",
      );
    }
    signerKey = only.identitySigningKey;
  } else {
    const expectedHash = deviceListHash(previous);
    if (
      next.account !== previous.account ||
      next.version !== previous.version + 1 ||
      !equalBytes(next.previousHash, expectedHash)
    ) {
      throw new DeviceListError(
        "DEVICE_LIST_BROKEN_CHAIN",
        `not the version after ${previous.version} of ${previous.account}'s device list`,
      );
    }
    signerKey = previous.devices.find(
      (device) => device.address === next.signer,
    )?.identitySigningKey;
    if (signerKey === undefined) {
      throw new DeviceListError(
        "DEVICE_LIST_SIGNER_NOT_LISTED",
        `${next.signer} is not on version ${previous.version} of the list`,
      );
    }
    if (sameDevices(previous.devices, next.devices)) {
      throw new DeviceListError(
        "DEVICE_LIST_UNCHANGED",
        "the list names the same devices with the same keys as the version before",
      );
    }
  }
  if (!verifier.verify(next.signature, message, signerKey)) {
    throw new DeviceListError(
      "DEVICE_LIST_BAD_SIGNATURE",
      `the list's signature does not verify under ${next.signer}'s identity signing key`,
    );
  }
}

function checkShape(fields: DeviceListFields): void {
  if (typeof fields !== "object" || fields === null) throw malformed("not an object");
  const { account, version, previousHash, devices, signer } = fields;
  if (!isNormalizedAddress(account)) throw malformed("account is not a normalized address");
  if (!Number.isSafeInteger(version) || version < 1) {
    throw malformed("version must be a positive safe integer");
  }
  if (!isBytes(previousHash) || previousHash.length !== HASH_SIZE) {
    throw malformed(`previousHash must be ${HASH_SIZE} bytes`);
  }
  if (!Array.isArray(devices) || devices.length < 1 || devices.length > LIMITS.devicesPerAccount) {
    throw malformed(`a list names 1 to ${LIMITS.devicesPerAccount} devices`);
  }
  let last = "";
  for (const device of devices) {
    if (typeof device !== "object" || device === null) throw malformed("a device is not an object");
    const { address, identitySigningKey } = device;
    if (!isNormalizedAddress(address) || accountOf(address) !== account) {
      throw malformed(`every device must be a normalized address of ${account}`);
    }
    if (address <= last) throw malformed("devices must be sorted by address, each once");
    last = address;
    if (!isBytes(identitySigningKey) || identitySigningKey.length !== KEY_SIZE) {
      throw malformed(`identitySigningKey must be ${KEY_SIZE} bytes`);
    }
  }
  if (!isNormalizedAddress(signer) || accountOf(signer) !== account) {
    throw malformed(`signer must be a normalized address of ${account}`);
  }
}

function isNormalizedAddress(value: unknown): value is string {
  return typeof value === "string" && isValidAddress(value) && normalizeAddress(value) === value;
}

function lengthPrefixed(text: string): Uint8Array {
  const bytes = utf8.encode(text);
  return concatBytes(Uint8Array.of(bytes.length >> 8, bytes.length & 0xff), bytes);
}

function sameDevices(a: DeviceEntry[], b: DeviceEntry[]): boolean {
  return (
    a.length === b.length &&
    a.every((device, i) => {
      const other = b[i];
      return (
        other !== undefined &&
        device.address === other.address &&
        equalBytes(device.identitySigningKey, other.identitySigningKey)
      );
    })
  );
}

function isZero(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0);
}

function malformed(why: string): DeviceListError {
  return new DeviceListError("DEVICE_LIST_MALFORMED", `device list: ${why}`);
}
