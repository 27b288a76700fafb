import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { ed25519KeyPairFromSeed, encodeBase64Url, signedBodyMessage } from "@svc/canonical";

/**
 * Ed25519 signing through node:crypto for load generators: tweetnacl signs about 50 bodies a
 * second on this machine, which would measure the client instead of the server.
 */
export function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  const publicKey = ed25519KeyPairFromSeed(seed).publicKey;
  return createPrivateKey({
    key: { kty: "OKP", crv: "Ed25519", d: encodeBase64Url(seed), x: encodeBase64Url(publicKey) },
    format: "jwk",
  });
}

/** The body with its D3 signature (signedAt included in `fields`). */
export function signBodyWith(
  key: KeyObject,
  method: string,
  path: string,
  fields: Record<string, unknown>,
): Record<string, unknown> {
  const signature = sign(null, signedBodyMessage(method, path, fields), key);
  return { ...fields, signature: signature.toString("base64") };
}
