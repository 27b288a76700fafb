const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** RFC 4648 section 4 base64 with padding. */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * Strict RFC 4648 section 4 decoding: standard alphabet, padding required, no whitespace and no
 * non-zero unused bits (one spelling per byte string). Undefined for anything else.
 */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!STRICT_BASE64.test(text)) return undefined;
  const binary = atob(text);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return encodeBase64(bytes) === text ? bytes : undefined;
}
