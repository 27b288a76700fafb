import { ed25519 } from "@noble/curves/ed25519.js";
import { COSIGNATURE_V1_TYPE, isValidKeyName, keyId } from "./keys.js";
import { checkText, malformed, signatureLine } from "./lines.js";

/** The largest cosignature timestamp, 2^63 - 1. */
export const MAX_TIMESTAMP = (1n << 63n) - 1n;

const utf8 = new TextEncoder();

/** The message a cosignature/v1 signs: "cosignature/v1\ntime <timestamp>\n" and the checkpoint. */
export function cosignedMessage(checkpointText: string, timestamp: bigint): Uint8Array {
  return utf8.encode(`cosignature/v1\ntime ${timestamp.toString(10)}\n${checkpointText}`);
}

/**
 * A cosignature/v1 signature line (C2SP tlog-cosignature, Ed25519) for a checkpoint, given its
 * note text (ending in a newline, without signature lines), to append to the signed checkpoint:
 * `— <name> base64(key ID || 8-byte big-endian timestamp || Ed25519 signature)` and a newline.
 * `secretKey` is the 32-byte Ed25519 seed; `timestamp` is in POSIX seconds, 0 to 2^63 - 1.
 */
export function cosign(
  checkpointText: string,
  name: string,
  secretKey: Uint8Array,
  timestamp: number | bigint,
): string {
  checkText(checkpointText);
  if (!isValidKeyName(name)) throw malformed("the cosigner's name is not a key name");
  if (typeof timestamp === "number" && !Number.isSafeInteger(timestamp)) {
    throw malformed("the timestamp is not an integer");
  }
  const time = BigInt(timestamp);
  if (time < 0n || time > MAX_TIMESTAMP) throw malformed("the timestamp is out of range");
  const publicKey = ed25519.getPublicKey(secretKey);
  const signature = new Uint8Array(72);
  new DataView(signature.buffer).setBigUint64(0, time, false);
  signature.set(ed25519.sign(cosignedMessage(checkpointText, time), secretKey), 8);
  return signatureLine(name, keyId(name, COSIGNATURE_V1_TYPE, publicKey), signature);
}
