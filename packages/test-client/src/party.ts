import { encodeBase64 } from "@svc/canonical";
import { type Signer, type SignerFromSeed, seedOf, seedSigner } from "./signer.js";

/** An inbox owner or sender: its seed, signer and base64 Ed25519 public key. */
export interface Party {
  seed: Uint8Array;
  signer: Signer;
  publicKey: string;
}

export function party(label: string, signerFromSeed: SignerFromSeed = seedSigner): Party {
  const signer = signerFromSeed(seedOf(`party:${label}`));
  return { seed: signer.seed, signer, publicKey: encodeBase64(signer.publicKey) };
}
