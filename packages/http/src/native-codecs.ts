import { createHash } from "node:crypto";
import { CanonicalError } from "@svc/canonical";

/**
 * The server's versions of two portable codecs, done by node's native code: a deposit's ciphertext
 * (up to SVC_INBOX_MAX_BLOB_BYTES) is decoded and hashed on every request, where the JavaScript
 * versions of @svc/canonical and @noble/hashes cost several times more CPU than the rest of it.
 */

/** Lower-hex SHA-256 of `bytes`: what msgIdOf answers, by OpenSSL. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Accepts exactly what @svc/canonical's decodeBase64 accepts (the canonical padded RFC 4648
 * section 4 encoding of some bytes) and answers the same bytes. Node's decoder is lenient (it
 * skips what is not base64 and ignores trailing bits), so the text counts only when encoding the
 * decoded bytes gives it back.
 */
export function decodeBase64Native(text: string, expectedLength?: number): Uint8Array {
  if (typeof text !== "string") throw new TypeError("text must be a string");
  const bytes = Buffer.from(text, "base64");
  if (bytes.toString("base64") !== text) {
    throw new CanonicalError(
      "INVALID_BASE64",
      "invalid base64: not the canonical padded encoding of any bytes",
    );
  }
  if (expectedLength !== undefined && bytes.length !== expectedLength) {
    throw new CanonicalError(
      "INVALID_BASE64",
      `invalid base64: expected ${expectedLength} bytes, got ${bytes.length}`,
    );
  }
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
}
