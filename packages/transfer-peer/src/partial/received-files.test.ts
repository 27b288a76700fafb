import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { newStreamId } from "@svc/protocol/transfer";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ReceivedFiles } from "./received-files.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-received-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

describe("ReceivedFiles", () => {
  it("assembles chunks written out of order, hashes them and links the whole file into place", async () => {
    const files = new ReceivedFiles(dir);
    const id = newStreamId();
    const content = randomBytes(1_000_003);
    await files.prepare(id);
    const offsets = Array.from({ length: 10 }, (_, i) => i * 100_001).reverse();
    await Promise.all(
      offsets.map((offset) => files.write(id, offset, content.subarray(offset, offset + 100_001))),
    );
    expect(await files.trimAndHash(id, content.length)).toBe(sha256(content));
    const path = await files.save(id, "data.bin");
    expect(path).toBe(join(dir, "data.bin"));
    expect(await readFile(path)).toEqual(content);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, ".partial"))).mode & 0o777).toBe(0o700);
    await files.remove(id);
    expect(await readdir(join(dir, ".partial"))).toEqual([]);
  });

  it("never overwrites a file: the next free name (n) is taken", async () => {
    const files = new ReceivedFiles(dir);
    await writeFile(join(dir, "a.txt"), "mine");
    await writeFile(join(dir, "a (1).txt"), "mine too");
    const id = newStreamId();
    await files.prepare(id);
    await files.write(id, 0, new TextEncoder().encode("theirs"));
    expect(await files.save(id, "a.txt")).toBe(join(dir, "a (2).txt"));
    expect(await readFile(join(dir, "a.txt"), "utf8")).toBe("mine");
    expect(await readFile(join(dir, "a (2).txt"), "utf8")).toBe("theirs");
  });

  it("keeps the data of a prepared file when prepared again, and cuts what lies past the size", async () => {
    const files = new ReceivedFiles(dir);
    const id = newStreamId();
    await files.prepare(id);
    await files.write(id, 0, new TextEncoder().encode("hello, world"));
    await files.prepare(id);
    expect(await files.trimAndHash(id, 5)).toBe(sha256(new TextEncoder().encode("hello")));
  });

  it("fails a write to a removed partial file with ENOENT, and removes twice quietly", async () => {
    const files = new ReceivedFiles(dir);
    const id = newStreamId();
    await files.prepare(id);
    await files.remove(id);
    await files.remove(id);
    await expect(files.write(id, 0, new Uint8Array(1))).rejects.toMatchObject({ code: "ENOENT" });
  });
});
