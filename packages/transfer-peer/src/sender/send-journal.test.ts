import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ResumeInfo } from "./options.js";
import { SendJournal } from "./send-journal.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-send-journal-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const route = { to: "bob@example.org:1", peer: "http://10.0.0.2:8787/" };
const stream: ResumeInfo = {
  streamId: "AAAAAAAAAAAAAAAAAAAAAA",
  key: new Uint8Array(randomBytes(32)),
  lanes: 3,
  chunkBytes: 65_536,
  sha256: "ab".repeat(32),
};

async function file(content = "hello"): Promise<string> {
  const path = join(dir, "file.txt");
  await writeFile(path, content);
  return path;
}

describe("SendJournal", () => {
  it("keeps a version 2 stream without a SHA-256, with the file's size", async () => {
    const journal = new SendJournal(join(dir, "journal"));
    const path = await file("hello, version 2");
    const { sha256: _, ...rest } = stream;
    const v2: ResumeInfo = { ...rest, version: 2, cipher: "aes-256-gcm", size: 16 };
    await journal.save(path, route, v2);
    expect(await journal.lookup(path, route)).toEqual(v2);
    // A version 1 entry written by an earlier build (no streamVersion) still reads as version 1.
    await journal.save(path, route, stream);
    expect(await journal.lookup(path, route)).toEqual(stream);
  });

  it("keeps a stream per file and route, in a private file, until removed", async () => {
    const journal = new SendJournal(join(dir, "journal"));
    const path = await file();
    expect(await journal.lookup(path, route)).toBeUndefined();
    await journal.save(path, route, stream);
    expect(await journal.lookup(path, route)).toEqual(stream);
    // The address is normalized (NFKC) and a trailing slash of the URL ignored.
    expect(
      await journal.lookup(path, { to: "ｂob@example.org:1", peer: "http://10.0.0.2:8787" }),
    ).toEqual(stream);
    expect(await journal.lookup(path, { ...route, to: "carol@example.org:1" })).toBeUndefined();
    expect(await journal.lookup(path, { ...route, peer: "http://10.0.0.3:8787" })).toBeUndefined();

    const [entry] = await readdir(join(dir, "journal"));
    expect(((await stat(join(dir, "journal", entry as string))).mode & 0o777).toString(8)).toBe(
      "600",
    );
    expect(((await stat(join(dir, "journal"))).mode & 0o777).toString(8)).toBe("700");

    await journal.remove(path, route);
    expect(await journal.lookup(path, route)).toBeUndefined();
    await journal.remove(path, route);
  });

  it("forgets a file that changed size or mtime, or is gone", async () => {
    const journal = new SendJournal(dir);
    const path = await file();
    await journal.save(path, route, stream);
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    expect(await journal.lookup(path, route)).toBeUndefined();
    await journal.save(path, route, stream);
    await writeFile(path, "hello, world");
    expect(await journal.lookup(path, route)).toBeUndefined();
    await rm(path);
    expect(await journal.lookup(path, route)).toBeUndefined();
  });

  it("treats an entry it cannot read as absent", async () => {
    const journal = new SendJournal(dir);
    const path = await file();
    await journal.save(path, route, stream);
    const entries = (await readdir(dir)).filter((name) => name.endsWith(".json"));
    await writeFile(join(dir, entries[0] as string), "{ not json");
    expect(await journal.lookup(path, route)).toBeUndefined();
    await journal.save(path, route, stream);
    expect(await journal.lookup(path, route)).toEqual(stream);
  });
});
