import { createHash } from "node:crypto";
import { open } from "node:fs/promises";

const READ_BYTES = 4 * 1024 * 1024;

/**
 * Lower-hex SHA-256 of a file, read in large pieces into one buffer over and over: a read
 * stream's new buffer per read is garbage the collector pays for over gigabytes.
 */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  const file = await open(path, "r");
  try {
    for (let position = 0; ; ) {
      const { bytesRead } = await file.read(buffer, 0, READ_BYTES, position);
      if (bytesRead === 0) return hash.digest("hex");
      hash.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
  } finally {
    await file.close();
  }
}
