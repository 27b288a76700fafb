import { createHash, randomFillSync } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The bytes every row moves: one file of random bytes, made once per run. */
export interface TestFile {
  path: string;
  bytes: number;
  /** Lower-hex SHA-256 of the content. */
  sha256: string;
  remove(): Promise<void>;
}

const WRITE_BYTES = 4 * 1024 * 1024;

/** Random, so that nothing on the way (a compressing disk, a cache) is faster than on real data. */
export async function createTestFile(bytes: number): Promise<TestFile> {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-transfer-"));
  const path = join(dir, "random.bin");
  const hash = createHash("sha256");
  const block = Buffer.alloc(WRITE_BYTES);
  const handle = await open(path, "w", 0o600);
  try {
    for (let written = 0; written < bytes; written += block.length) {
      const piece = block.subarray(0, Math.min(block.length, bytes - written));
      randomFillSync(piece);
      hash.update(piece);
      await handle.write(piece);
    }
  } finally {
    await handle.close();
  }
  return {
    path,
    bytes,
    sha256: hash.digest("hex"),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path, { highWaterMark: WRITE_BYTES })) {
    hash.update(chunk as Buffer);
  }
  return hash.digest("hex");
}
