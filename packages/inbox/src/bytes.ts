/**
 * RFC 4648 base64 (standard alphabet, padded), as `encodeBase64` of @svc/canonical writes it, but
 * through Node's native encoder: fetch and backlog reads encode up to 100 blobs of up to 64 MiB.
 */
export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}
