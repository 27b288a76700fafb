import type { Ed25519Verifier } from "@svc/canonical";
import { chooseEd25519Verifier } from "./server-verifier.js";
import { loadSodiumNative } from "./sodium.js";

export { type NodeEd25519Options, nodeEd25519 } from "./node-crypto.js";

/**
 * The server's Ed25519 verifier: libsodium (sodium-native, an optional dependency) where its
 * binary loads, else node:crypto; both answer exactly as `portableEd25519` from
 * `@svc/canonical` does. `onFallback` is called with the reason when libsodium does not load.
 */
export function serverEd25519Verifier(onFallback?: (reason: string) => void): Ed25519Verifier {
  return chooseEd25519Verifier(loadSodiumNative, onFallback);
}
