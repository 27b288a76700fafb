import { DEVICE_LIST_DOMAIN, type DeviceEntry, type DeviceListFields } from "@svc/protocol";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The fields of a stored list's signed bytes (written only after checkDeviceListStep passed). */
export function parseDeviceListMessage(message: Uint8Array): DeviceListFields {
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  let at = DEVICE_LIST_DOMAIN.length;
  const text = (): string => {
    const length = view.getUint16(at);
    at += 2;
    const value = utf8.decode(message.subarray(at, at + length));
    at += length;
    return value;
  };
  const bytes = (length: number): Uint8Array => {
    const value = message.slice(at, at + length);
    at += length;
    return value;
  };
  const account = text();
  const version = Number(view.getBigUint64(at));
  at += 8;
  const previousHash = bytes(32);
  const count = view.getUint8(at);
  at += 1;
  const devices: DeviceEntry[] = [];
  for (let i = 0; i < count; i++) {
    const address = text();
    devices.push({ address, identitySigningKey: bytes(32) });
  }
  return { account, version, previousHash, devices, signer: text() };
}
