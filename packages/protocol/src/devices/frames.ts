import { assertBytes, concatBytes, equalBytes, isValidAddress, u64be } from "@svc/canonical";
import { DeviceMessageError } from "./errors.js";

/**
 * Domain of the plaintexts two devices of one account send each other: `svc-device-frame-v1`
 * and 0x00, then a kind byte. Plaintexts between different accounts are the application's bytes,
 * untouched.
 */
export const DEVICE_FRAME_DOMAIN: Uint8Array = new TextEncoder().encode("svc-device-frame-v1\0");

export const DEVICE_FRAME_KIND = {
  "sent-copy": 1,
  "link-request": 2,
  "link-approval": 3,
  "link-refused": 4,
} as const;

export type DeviceFrame =
  /** A copy of a message this account sent to `to`, for its other devices. */
  | { kind: "sent-copy"; to: string; sentAtMs: number; plaintext: Uint8Array }
  /** A new device's identity keys, with the code's MAC over them. */
  | {
      kind: "link-request";
      identitySigningKey: Uint8Array;
      identityDHKey: Uint8Array;
      mac: Uint8Array;
    }
  /** The list version that added the new device, with the code's MAC over its hash. */
  | { kind: "link-approval"; version: number; listHash: Uint8Array; mac: Uint8Array }
  /** The request's MAC did not verify: the code was wrong. */
  | { kind: "link-refused" };

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const KEY = 32;

/**
 * DEVICE_FRAME_DOMAIN || u8 kind || body: sent-copy `u16be len || to || u64be sentAtMs ||
 * plaintext`; link-request `identitySigningKey (32) || identityDHKey (32) || mac (32)`;
 * link-approval `u64be version || listHash (32) || mac (32)`; link-refused nothing.
 */
export function encodeDeviceFrame(frame: DeviceFrame): Uint8Array {
  const kind = Uint8Array.of(DEVICE_FRAME_KIND[frame.kind]);
  switch (frame.kind) {
    case "sent-copy": {
      if (!isValidAddress(frame.to)) throw new RangeError("to must be an address");
      assertBytes("plaintext", frame.plaintext);
      const to = utf8.encode(frame.to);
      return concatBytes(
        DEVICE_FRAME_DOMAIN,
        kind,
        Uint8Array.of(to.length >> 8, to.length & 0xff),
        to,
        u64be(frame.sentAtMs),
        frame.plaintext,
      );
    }
    case "link-request":
      return concatBytes(
        DEVICE_FRAME_DOMAIN,
        kind,
        sized("identitySigningKey", frame.identitySigningKey),
        sized("identityDHKey", frame.identityDHKey),
        sized("mac", frame.mac),
      );
    case "link-approval":
      return concatBytes(
        DEVICE_FRAME_DOMAIN,
        kind,
        u64be(frame.version),
        sized("listHash", frame.listHash),
        sized("mac", frame.mac),
      );
    case "link-refused":
      return concatBytes(DEVICE_FRAME_DOMAIN, kind);
  }
}

/** Whether `plaintext` starts with the device frame domain. */
export function isDeviceFrame(plaintext: Uint8Array): boolean {
  return (
    plaintext.length > DEVICE_FRAME_DOMAIN.length &&
    equalBytes(plaintext.subarray(0, DEVICE_FRAME_DOMAIN.length), DEVICE_FRAME_DOMAIN)
  );
}

/** Reads {@link encodeDeviceFrame}'s bytes; anything else is DEVICE_FRAME_MALFORMED. */
export function decodeDeviceFrame(plaintext: Uint8Array): DeviceFrame {
  assertBytes("plaintext", plaintext);
  if (!isDeviceFrame(plaintext)) throw malformed("does not start with the device frame domain");
  const view = new DataView(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength);
  let offset = DEVICE_FRAME_DOMAIN.length;
  const kind = plaintext[offset++];
  const rest = plaintext.length - offset;
  const take = (length: number) => {
    offset += length;
    return plaintext.slice(offset - length, offset);
  };
  const u64 = () => {
    const value = view.getUint32(offset) * 2 ** 32 + view.getUint32(offset + 4);
    offset += 8;
    if (!Number.isSafeInteger(value)) throw malformed("a number above 2^53 - 1");
    return value;
  };
  switch (kind) {
    case DEVICE_FRAME_KIND["sent-copy"]: {
      if (rest < 2) throw malformed("sent-copy: too short");
      const length = view.getUint16(offset);
      offset += 2;
      if (rest < 2 + length + 8) throw malformed("sent-copy: too short");
      let to: string;
      try {
        to = strictUtf8.decode(take(length));
      } catch {
        throw malformed("sent-copy: to is not UTF-8");
      }
      if (!isValidAddress(to)) throw malformed("sent-copy: to is not an address");
      const sentAtMs = u64();
      return { kind: "sent-copy", to, sentAtMs, plaintext: plaintext.slice(offset) };
    }
    case DEVICE_FRAME_KIND["link-request"]:
      if (rest !== 3 * KEY) throw malformed("link-request: wrong length");
      return {
        kind: "link-request",
        identitySigningKey: take(KEY),
        identityDHKey: take(KEY),
        mac: take(KEY),
      };
    case DEVICE_FRAME_KIND["link-approval"]: {
      if (rest !== 8 + 2 * KEY) throw malformed("link-approval: wrong length");
      const version = u64();
      return { kind: "link-approval", version, listHash: take(KEY), mac: take(KEY) };
    }
    case DEVICE_FRAME_KIND["link-refused"]:
      if (rest !== 0) throw malformed("link-refused: wrong length");
      return { kind: "link-refused" };
    default:
      throw malformed(`unknown kind ${kind}`);
  }
}

function sized(name: string, bytes: Uint8Array): Uint8Array {
  assertBytes(name, bytes);
  if (bytes.length !== KEY) throw new RangeError(`${name} must be ${KEY} bytes`);
  return bytes;
}

function malformed(why: string): DeviceMessageError {
  return new DeviceMessageError("DEVICE_FRAME_MALFORMED", `device frame: ${why}`);
}
