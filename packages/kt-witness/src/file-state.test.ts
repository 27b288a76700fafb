import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatAddCheckpoint } from "./add-checkpoint.js";
import { FileWitnessState } from "./file-state.js";
import { LOCK_FILE } from "./state-lock.js";
import { codeOf } from "./test-support/error-code.js";
import { testLog, testSigner } from "./test-support/log.js";
import { Witness } from "./witness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "kt-witness-state-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function openState(dir: string): Promise<FileWitnessState> {
  const state = await FileWitnessState.open(dir);
  cleanups.push(() => state.close());
  return state;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const pid = spawnSync(process.execPath, ["-e", ""]).pid;
  if (pid === undefined) throw new Error("no child process");
  return pid;
}

const root = (fill: number) => new Uint8Array(32).fill(fill);

describe("FileWitnessState", () => {
  it("keeps one 0600 file per origin, named by the SHA-256 of the origin", async () => {
    const dir = await tempDir();
    const state = await openState(join(dir, "logs"));
    expect(await state.read("log.example/kt")).toBeUndefined();
    await state.write("log.example/kt", { size: 5, rootHash: root(1) });
    await state.write("log.example/kt", { size: 9, rootHash: root(2) });
    await state.write("other.example", { size: 1, rootHash: root(3) });
    expect(await state.read("log.example/kt")).toEqual({ size: 9, rootHash: root(2) });
    expect(await state.read("other.example")).toEqual({ size: 1, rootHash: root(3) });
    const name = `${createHash("sha256").update("log.example/kt").digest("hex")}.json`;
    const path = join(dir, "logs", name);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({
      origin: "log.example/kt",
      size: 9,
      rootHash: Buffer.from(root(2)).toString("base64"),
    });
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "logs"))).mode & 0o777).toBe(0o700);
    expect((await readdir(join(dir, "logs"))).filter((f) => !f.endsWith(".json")).sort()).toEqual([
      LOCK_FILE,
    ]);
  });

  it("is what a new Witness over the same directory starts from", async () => {
    const dir = await tempDir();
    const log = testLog();
    const make = (state: FileWitnessState) =>
      new Witness({ signer: testSigner("w", 4), logs: [log.verifier], state });
    const first = await FileWitnessState.open(dir);
    expect((await make(first).add(log.body(0, 12))).status).toBe(200);
    await first.close();
    const witness = make(await openState(dir));
    expect(await witness.add(log.body(0, 20))).toMatchObject({ status: 409, size: 12 });
    const rolledBack = { oldSize: 12, proof: [], checkpoint: log.checkpoint(6) };
    expect(await witness.add(formatAddCheckpoint(rolledBack))).toMatchObject({ status: 400 });
    expect((await witness.add(log.body(12, 20))).status).toBe(200);
  });

  it("locks the directory for one process at a time", async () => {
    const dir = await tempDir();
    const first = await FileWitnessState.open(dir);
    expect(await readFile(join(dir, LOCK_FILE), "utf8")).toBe(`${process.pid}\n`);
    expect(await codeOf(() => FileWitnessState.open(dir))).toBe("WITNESS_STATE_LOCKED");
    await first.close();
    await expect(readFile(join(dir, LOCK_FILE))).rejects.toThrow(/ENOENT/);
    await expect(first.read("x")).rejects.toThrow(/closed/);
    await openState(dir);
  });

  it("refuses a directory whose lock another live process holds", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, LOCK_FILE), `${process.ppid}\n`);
    expect(await codeOf(() => FileWitnessState.open(dir))).toBe("WITNESS_STATE_LOCKED");
    expect(await readFile(join(dir, LOCK_FILE), "utf8")).toBe(`${process.ppid}\n`);
  });

  it("takes over the lock of a process that is gone, or of an earlier life of its own pid", async () => {
    for (const holder of [`${deadPid()}\n`, `${process.pid}\n`, "garbage"]) {
      const dir = await tempDir();
      await writeFile(join(dir, LOCK_FILE), holder);
      const state = await FileWitnessState.open(dir);
      expect(await readFile(join(dir, LOCK_FILE), "utf8")).toBe(`${process.pid}\n`);
      await state.close();
    }
  });

  it("removes drafts a killed process left, and refuses files it did not write", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "abc.json.123.deadbeef.tmp"), "{");
    const state = await openState(dir);
    expect(await readdir(dir)).toEqual([LOCK_FILE]);
    const path = (origin: string) =>
      join(dir, `${createHash("sha256").update(origin).digest("hex")}.json`);
    const b64 = Buffer.from(root(1)).toString("base64");
    for (const text of [
      "{",
      "null",
      JSON.stringify({ origin: "else", size: 1, rootHash: b64 }),
      JSON.stringify({ origin: "o", size: -1, rootHash: b64 }),
      JSON.stringify({ origin: "o", size: 1.5, rootHash: b64 }),
      JSON.stringify({ origin: "o", size: "1", rootHash: b64 }),
      JSON.stringify({ origin: "o", size: 1, rootHash: b64.slice(4) }),
    ]) {
      await writeFile(path("o"), text);
      expect(await codeOf(() => state.read("o"))).toBe("WITNESS_STATE_CORRUPT");
    }
  });

  it("says which argument is wrong on write", async () => {
    const state = await openState(await tempDir());
    await expect(state.write("o", { size: -1, rootHash: root(1) })).rejects.toThrow(RangeError);
    await expect(state.write("o", { size: 1, rootHash: new Uint8Array(31) })).rejects.toThrow(
      /rootHash/,
    );
  });
});
