import { decodeBase64, encodeBase64 } from "@svc/canonical";
import type { DeviceListWire } from "../schemas/devices.js";
import type { DeviceList } from "./device-list.js";
import { DeviceListError } from "./errors.js";

/** A list as the wire carries it (DeviceListJson). */
export function deviceListToJson(list: DeviceList): DeviceListWire {
  return {
    account: list.account,
    version: list.version,
    previousHash: encodeBase64(list.previousHash),
    devices: list.devices.map((device) => ({
      address: device.address,
      identitySigningKey: encodeBase64(device.identitySigningKey),
    })),
    signer: list.signer,
    signature: encodeBase64(list.signature),
  };
}

/**
 * The list of a body that passed DeviceListJson; base64 that is not, or bytes of the wrong
 * length, are DEVICE_LIST_MALFORMED. The list's own rules are checkDeviceListStep's.
 */
export function deviceListFromJson(json: DeviceListWire): DeviceList {
  return {
    account: json.account,
    version: json.version,
    previousHash: bytes(json.previousHash, "previousHash", 32),
    devices: json.devices.map((device) => ({
      address: device.address,
      identitySigningKey: bytes(device.identitySigningKey, "identitySigningKey", 32),
    })),
    signer: json.signer,
    signature: bytes(json.signature, "signature", 64),
  };
}

function bytes(text: string, name: string, length: number): Uint8Array {
  try {
    return decodeBase64(text, length);
  } catch {
    throw new DeviceListError(
      "DEVICE_LIST_MALFORMED",
      `device list: ${name} must be ${length} bytes of base64`,
    );
  }
}
