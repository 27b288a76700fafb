import { equalBytes } from "@svc/canonical";
import {
  DEVICE_LIST_DOMAIN,
  type DeviceEntry,
  type DeviceListFields,
  deviceListMessage,
} from "./device-list.js";
import { DeviceListError } from "./errors.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The fields of a device list's signed bytes, as stored: the inverse of deviceListMessage. Bytes
 * that deviceListMessage would not write the same way (a bad domain, a short or long message,
 * invalid UTF-8, a list breaking its own rules) are DeviceListError DEVICE_LIST_MALFORMED.
 */
export function parseDeviceListMessage(message: Uint8Array): DeviceListFields {
  try {
    const fields = readFields(message);
    if (!equalBytes(deviceListMessage(fields), message)) throw new RangeError("not canonical");
    return fields;
  } catch (error) {
    if (error instanceof DeviceListError) throw error;
    throw new DeviceListError(
      "DEVICE_LIST_MALFORMED",
      `not a device list's signed bytes: ${(error as Error).message}`,
    );
  }
}

function readFields(message: Uint8Array): DeviceListFields {
  if (!equalBytes(message.subarray(0, DEVICE_LIST_DOMAIN.length), DEVICE_LIST_DOMAIN)) {
    throw new RangeError("no device-list domain");
  }
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  let at = DEVICE_LIST_DOMAIN.length;
  const take = (length: number): Uint8Array => {
    if (at + length > message.length) throw new RangeError("cut short");
    const value = message.slice(at, at + length);
    at += length;
    return value;
  };
  const text = (): string => {
    const length = view.getUint16(at);
    at += 2;
    return utf8.decode(take(length));
  };
  const account = text();
  const version = Number(view.getBigUint64(at));
  at += 8;
  const previousHash = take(32);
  const count = view.getUint8(at);
  at += 1;
  const devices: DeviceEntry[] = [];
  for (let i = 0; i < count; i++) {
    const address = text();
    devices.push({ address, identitySigningKey: take(32) });
  }
  return { account, version, previousHash, devices, signer: text() };
}
