import { decodeBase64Url, encodeBase64Url } from "@svc/canonical";

/** A transfer stream id: 16 random bytes, unpadded base64url, always 22 characters. */
export const STREAM_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
export const STREAM_ID_BYTES = 16;

/** 22 characters carry 132 bits: the strict decoder also refuses non-zero spare bits. */
export function isStreamId(text: string): boolean {
  if (!STREAM_ID_PATTERN.test(text)) return false;
  try {
    decodeBase64Url(text, STREAM_ID_BYTES);
    return true;
  } catch {
    return false;
  }
}

export function encodeStreamId(bytes: Uint8Array): string {
  if (bytes.length !== STREAM_ID_BYTES) throw new RangeError("bytes must be 16 bytes");
  return encodeBase64Url(bytes);
}

export function newStreamId(): string {
  return encodeStreamId(globalThis.crypto.getRandomValues(new Uint8Array(STREAM_ID_BYTES)));
}
