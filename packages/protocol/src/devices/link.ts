import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { assertBytes, concatBytes } from "@svc/canonical";
import { DeviceMessageError } from "./errors.js";

/** Bytes of a link code's secret: 80 bits, 16 characters of Crockford's base32. */
export const LINK_SECRET_SIZE = 10;
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const GROUPS = 4;
const GROUP_LENGTH = 4;
const SECRET_TEXT = GROUPS * GROUP_LENGTH + GROUPS - 1;
const utf8 = new TextEncoder();

/** What a link code carries: the approving device's part of its address, and the secret. */
export interface LinkCode {
  /** The device part of the approving device's address (after the account's `:`). */
  device: string;
  secret: Uint8Array;
}

/**
 * `<device>-XXXX-XXXX-XXXX-XXXX`: the approving device's part of its address, then the secret in
 * Crockford's base32 (digits and capitals without I, L, O, U), in four groups.
 */
export function formatLinkCode({ device, secret }: LinkCode): string {
  assertBytes("secret", secret);
  if (secret.length !== LINK_SECRET_SIZE) {
    throw new RangeError(`secret must be ${LINK_SECRET_SIZE} bytes`);
  }
  if (!isDevicePart(device)) throw new RangeError("device must be an address's device part");
  let bits = 0n;
  for (const byte of secret) bits = (bits << 8n) | BigInt(byte);
  let text = "";
  for (let i = GROUPS * GROUP_LENGTH - 1; i >= 0; i--) {
    text += ALPHABET[Number((bits >> BigInt(i * 5)) & 31n)];
  }
  const groups = Array.from({ length: GROUPS }, (_, i) =>
    text.slice(i * GROUP_LENGTH, (i + 1) * GROUP_LENGTH),
  );
  return `${device}-${groups.join("-")}`;
}

/**
 * Reads a code as a person typed it: spaces around it ignored, the secret in either case, with
 * O read as 0 and I or L as 1 (Crockford). Anything else is LINK_CODE_MALFORMED.
 */
export function parseLinkCode(typed: string): LinkCode {
  if (typeof typed !== "string") throw new TypeError("code must be a string");
  const code = typed.trim();
  const secretText = code.slice(-SECRET_TEXT);
  const device = code.slice(0, -SECRET_TEXT - 1);
  if (code.length <= SECRET_TEXT + 1 || code[code.length - SECRET_TEXT - 1] !== "-") {
    throw malformedCode();
  }
  if (!isDevicePart(device)) throw malformedCode();
  const groups = secretText.split("-");
  if (groups.length !== GROUPS || groups.some((group) => group.length !== GROUP_LENGTH)) {
    throw malformedCode();
  }
  let bits = 0n;
  for (const char of groups.join("").toUpperCase()) {
    const value = ALPHABET.indexOf(char === "O" ? "0" : char === "I" || char === "L" ? "1" : char);
    if (value < 0) throw malformedCode();
    bits = (bits << 5n) | BigInt(value);
  }
  const secret = new Uint8Array(LINK_SECRET_SIZE);
  for (let i = LINK_SECRET_SIZE - 1; i >= 0; i--) {
    secret[i] = Number(bits & 0xffn);
    bits >>= 8n;
  }
  return { device, secret };
}

/**
 * The key both devices derive from the code's secret: HKDF-SHA256 with a zero salt and the info
 * `svc-link-v1` 0x00 || account. It never leaves the two devices; the server never sees it.
 */
export function linkKey(secret: Uint8Array, account: string): Uint8Array {
  assertBytes("secret", secret);
  const info = concatBytes(utf8.encode("svc-link-v1\0"), utf8.encode(account));
  return hkdf(sha256, secret, new Uint8Array(32), info, 32);
}

/** What the new device proves it knows the code with: its address and both identity keys. */
export function linkRequestMac(
  key: Uint8Array,
  request: { address: string; identitySigningKey: Uint8Array; identityDHKey: Uint8Array },
): Uint8Array {
  const address = utf8.encode(request.address);
  return hmac(
    sha256,
    key,
    concatBytes(
      utf8.encode("request\0"),
      Uint8Array.of(address.length >> 8, address.length & 0xff),
      address,
      request.identitySigningKey,
      request.identityDHKey,
    ),
  );
}

/** What the approving device proves it holds the code with: the hash of the list it wrote. */
export function linkApprovalMac(key: Uint8Array, listHash: Uint8Array): Uint8Array {
  return hmac(sha256, key, concatBytes(utf8.encode("approval\0"), listHash));
}

function isDevicePart(device: unknown): device is string {
  return typeof device === "string" && /^[a-zA-Z0-9@_.-]{1,255}$/.test(device);
}

function malformedCode(): DeviceMessageError {
  return new DeviceMessageError(
    "LINK_CODE_MALFORMED",
    "a link code is <device>-XXXX-XXXX-XXXX-XXXX, as the linking device shows it",
  );
}
