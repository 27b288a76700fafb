import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";

/** Bytes of an uncompressed P-256 point (0x04 || x || y) and of a private scalar. */
export const P256_POINT_LENGTH = 65;
export const P256_SCALAR_LENGTH = 32;

const ORDER = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

/** The public KeyObject of an uncompressed point, or undefined when it is not on the curve. */
export function p256PublicKey(point: Uint8Array): KeyObject | undefined {
  if (point.length !== P256_POINT_LENGTH || point[0] !== 0x04) return undefined;
  try {
    return createPublicKey({
      key: {
        kty: "EC",
        crv: "P-256",
        x: b64url(point.subarray(1, 33)),
        y: b64url(point.subarray(33)),
      },
      format: "jwk",
    });
  } catch {
    return undefined;
  }
}

/** Whether 32 bytes are a valid private scalar: 1 <= d < n. */
export function isP256Scalar(scalar: Uint8Array): boolean {
  if (scalar.length !== P256_SCALAR_LENGTH) return false;
  const d = BigInt(`0x${Buffer.from(scalar).toString("hex")}`);
  return d > 0n && d < ORDER;
}

/** The private KeyObject of a scalar whose public point is known. */
export function p256PrivateKey(scalar: Uint8Array, point: Uint8Array): KeyObject {
  return createPrivateKey({
    key: {
      kty: "EC",
      crv: "P-256",
      d: b64url(scalar),
      x: b64url(point.subarray(1, 33)),
      y: b64url(point.subarray(33)),
    },
    format: "jwk",
  });
}
