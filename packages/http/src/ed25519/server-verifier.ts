import type { Ed25519Verifier } from "@svc/canonical";
import { nodeEd25519 } from "./node-crypto.js";
import { type Sodium, sodiumEd25519 } from "./sodium.js";

/**
 * libsodium when `loadSodium` gives it, else node:crypto (OpenSSL): both answer exactly as
 * `portableEd25519` does, libsodium in about half the time. `onFallback` hears why libsodium
 * is not used.
 */
export function chooseEd25519Verifier(
  loadSodium: () => Sodium,
  onFallback?: (reason: string) => void,
): Ed25519Verifier {
  const openssl = nodeEd25519();
  let sodium: Sodium;
  try {
    sodium = loadSodium();
  } catch (error) {
    onFallback?.(
      `sodium-native did not load: ${error instanceof Error ? error.message : String(error)}`,
    );
    return openssl;
  }
  return sodiumEd25519(sodium, openssl);
}
