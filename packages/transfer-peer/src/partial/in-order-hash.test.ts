import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { InOrderHash } from "./in-order-hash.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function fileOf(content: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "svc-in-order-hash-"));
  dirs.push(dir);
  const path = join(dir, "stream.part");
  await writeFile(path, content);
  return path;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("InOrderHash", () => {
  it("is the data's SHA-256 whatever order the chunks come in and whichever never come", async () => {
    const content = randomBytes(10 * 1000);
    const path = await fileOf(content);
    const chunks = Array.from({ length: 10 }, (_, i) => i * 1000);
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(chunks, { minLength: 0, maxLength: 10 }),
        async (accepted) => {
          const hash = new InOrderHash(path);
          for (const offset of accepted) {
            hash.accepted(offset, content.subarray(offset, offset + 1000));
          }
          expect(await hash.digest(content.length)).toBe(sha256(content));
        },
      ),
      { numRuns: 50 },
    );
  });

  it("hashes the chunks taken in from memory, not from the file", async () => {
    const content = randomBytes(3000);
    // The file holds other bytes where the chunks taken in are: only the rest is read from it.
    const onDisk = new Uint8Array(content);
    onDisk.fill(0, 0, 2000);
    const hash = new InOrderHash(await fileOf(onDisk));
    hash.accepted(0, content.subarray(0, 1000));
    hash.accepted(1000, content.subarray(1000, 2000));
    expect(await hash.digest(3000)).toBe(sha256(content));
  });

  it("fails its digest when the file cannot be read", async () => {
    const hash = new InOrderHash(join(tmpdir(), "svc-no-such-dir", "stream.part"));
    hash.accepted(1000, new Uint8Array(1000));
    await expect(hash.digest(2000)).rejects.toThrow();
  });
});
