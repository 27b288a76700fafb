import { createPrivateKey, sign } from "node:crypto";
import { ed25519KeyPairFromSeed, encodeBase64Url } from "@svc/canonical";
import type { Signer } from "../signer.js";

/**
 * Ed25519 signing through node:crypto for load generators: tweetnacl signs about 50 bodies a
 * second on the bench machine, which would measure the client instead of the server.
 */
export function nodeSigner(seed: Uint8Array): Signer {
  const publicKey = ed25519KeyPairFromSeed(seed).publicKey;
  const key = createPrivateKey({
    key: { kty: "OKP", crv: "Ed25519", d: encodeBase64Url(seed), x: encodeBase64Url(publicKey) },
    format: "jwk",
  });
  return { seed, publicKey, sign: (message) => new Uint8Array(sign(null, message, key)) };
}
