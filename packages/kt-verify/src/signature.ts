import { bytesToHex, hexToBytes, portableEd25519 } from "@svc/canonical";
import { type SignedTreeHead, sthMessage } from "./sth.js";

/** Verifies one Ed25519 signature; resolves false (never rejects) for a bad one. */
export type SthSignatureVerifier = (
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
) => Promise<boolean>;

/** tweetnacl with the RFC 8032 strictness checks it lacks (S < L, canonical encodings). */
export const portableSthVerifier: SthSignatureVerifier = async (signature, message, publicKey) =>
  portableEd25519.verify(signature, message, publicKey);

/**
 * WebCrypto Ed25519 (`globalThis.crypto.subtle`) where the runtime has it, else
 * {@link portableSthVerifier}. Detected once, by verifying RFC 8032 section 7.1 test 1.
 * WebCrypto implementations (BoringSSL, OpenSSL) reject S >= L themselves. A signature that
 * verified is remembered: a client checks the same tree head with every proof it reads until the
 * log moves on (each device list read of a send to an account), and whether a signature verifies
 * is a pure function of its three inputs.
 */
export const defaultSthVerifier: SthSignatureVerifier = async (signature, message, publicKey) => {
  if (signature.length !== 64 || publicKey.length !== 32) return false;
  const remembered = `${bytesToHex(publicKey)}.${bytesToHex(signature)}.${bytesToHex(message)}`;
  if (verified.has(remembered)) return true;
  const valid = (await webCryptoEd25519())
    ? await webCryptoVerify(signature, message, publicKey)
    : await portableSthVerifier(signature, message, publicKey);
  if (valid) {
    if (verified.size >= REMEMBERED) verified.delete(verified.values().next().value as string);
    verified.add(remembered);
  }
  return valid;
};

/** How many verified signatures are remembered; the oldest goes first. */
const REMEMBERED = 256;
const verified = new Set<string>();

async function webCryptoVerify(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
): Promise<boolean> {
  const subtle = globalThis.crypto.subtle;
  try {
    const key = await subtle.importKey("raw", copy(publicKey), ED25519, false, ["verify"]);
    return await subtle.verify(ED25519, key, copy(signature), copy(message));
  } catch {
    return false;
  }
}

/** Does the operator key's signature over `sth` verify? */
export function verifySthSignature(
  sth: SignedTreeHead,
  publicKey: Uint8Array,
  verifier: SthSignatureVerifier = defaultSthVerifier,
): Promise<boolean> {
  return verifier(sth.signature, sthMessage(sth), publicKey);
}

const ED25519 = { name: "Ed25519" } as const;
const RFC8032_TEST1 = {
  publicKey: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
  signature:
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065" +
    "224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
};

let detected: Promise<boolean> | undefined;

/** True when this runtime verifies Ed25519 through WebCrypto (checked once). */
export function webCryptoEd25519(): Promise<boolean> {
  detected ??= (async () => {
    const subtle = globalThis.crypto?.subtle;
    if (subtle === undefined) return false;
    try {
      const key = await subtle.importKey(
        "raw",
        copy(hexToBytes(RFC8032_TEST1.publicKey)),
        ED25519,
        false,
        ["verify"],
      );
      return await subtle.verify(
        ED25519,
        key,
        copy(hexToBytes(RFC8032_TEST1.signature)),
        new Uint8Array(0),
      );
    } catch {
      return false;
    }
  })();
  return detected;
}

/** WebCrypto wants a BufferSource backed by a plain ArrayBuffer. */
function copy(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes);
}
