import { createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";
import { logIdOf, type SignedTreeHead, sthMessage, type TreeHead } from "@svc/kt-verify";
import { ED25519_TYPE, keyId, type Signer } from "@svc/signed-note";

/** The operator key: signs tree heads (node:crypto Ed25519). */
export interface SthSigner {
  readonly publicKey: Uint8Array;
  /** SHA-256 of the public key. */
  readonly logId: Uint8Array;
  sign(head: Omit<TreeHead, "logId">): SignedTreeHead;
  /** The same key as a signed-note signer under `name` (the log's origin), for checkpoints. */
  noteSigner(name: string): Signer;
}

/** RFC 8410 PKCS#8 prefix of an Ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);

export function createSthSigner(seed: Uint8Array): SthSigner {
  if (!(seed instanceof Uint8Array)) throw new TypeError("seed must be a Uint8Array");
  if (seed.length !== 32) throw new RangeError("seed must be 32 bytes");
  const der = new Uint8Array(PKCS8_ED25519_PREFIX.length + 32);
  der.set(PKCS8_ED25519_PREFIX);
  der.set(seed, PKCS8_ED25519_PREFIX.length);
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.from(der),
    format: "der",
    type: "pkcs8",
  });
  const jwk = createPublicKey(privateKey).export({ format: "jwk" });
  const publicKey = new Uint8Array(Buffer.from(jwk.x as string, "base64url"));
  const logId = logIdOf(publicKey);
  return {
    publicKey,
    logId,
    sign(head) {
      const full: TreeHead = { ...head, logId };
      const signature = new Uint8Array(sign(null, sthMessage(full), privateKey));
      return { ...full, signature };
    },
    noteSigner(name) {
      return {
        name,
        keyId: keyId(name, ED25519_TYPE, publicKey),
        seed: seed.slice(),
        publicKey,
        sign: (message) => new Uint8Array(sign(null, message, privateKey)),
      };
    },
  };
}
