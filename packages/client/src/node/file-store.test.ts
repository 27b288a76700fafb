import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ClientError } from "../errors.js";
import type { StoredState } from "../state.js";
import { fileStore } from "./file-store.js";

const scratch = () => mkdtemp(join(tmpdir(), "svc-file-store-"));
const stateOf = (address: string) => ({ version: 1, address }) as unknown as StoredState;

describe("fileStore", () => {
  it("keeps the state in state.json, mode 0600, in a directory it creates 0700", async () => {
    const dir = join(await scratch(), "nested", "keys");
    const store = fileStore(dir);
    expect(await store.load()).toBeUndefined();
    // Loading from a directory that does not exist creates nothing; the first save does.
    await expect(stat(join(dir, ".."))).rejects.toMatchObject({ code: "ENOENT" });
    await store.save(stateOf("alice:1"));
    expect(await store.load()).toEqual(stateOf("alice:1"));
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, "state.json"))).mode & 0o777).toBe(0o600);
    await store.close?.();
    expect((await readdir(dir)).sort()).toEqual(["state.json"]);
  });

  it("replaces the state whole: a write cut short by a crash leaves the old state, and its temp file is removed", async () => {
    const dir = await scratch();
    const first = fileStore(dir);
    await first.save(stateOf("alice:1"));
    // What a crash between write and rename leaves: a partial temp file beside the intact state.
    await writeFile(join(dir, "state.json.4242.7.tmp"), '{"version":1,"addr');
    const second = fileStore(dir);
    expect(await second.load()).toEqual(stateOf("alice:1"));
    expect((await readdir(dir)).sort()).toEqual(["state.json"]);
    await second.save(stateOf("alice:2"));
    expect(JSON.parse(await readFile(join(dir, "state.json"), "utf8"))).toEqual(stateOf("alice:2"));
  });

  it("locks per operation: stores on one directory take turns and see each other's saves", async () => {
    const dir = await scratch();
    const first = fileStore(dir);
    const second = fileStore(dir);
    await first.save(stateOf("alice:1"));
    expect(await second.load()).toEqual(stateOf("alice:1"));
    const order: string[] = [];
    let inside: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => {
      inside = resolve;
    });
    const holding = first.transaction?.(async () => {
      inside();
      order.push("first in");
      const state = await first.load();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.save({ ...(state as StoredState), address: "alice:2" });
      order.push("first out");
    });
    await entered;
    // Waits for the transaction (its own loads and saves do not), then reads what it saved.
    const waiting = second.load().then((state) => {
      order.push("second");
      return state;
    });
    await holding;
    expect(await waiting).toEqual(stateOf("alice:2"));
    expect(order).toEqual(["first in", "first out", "second"]);
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("gives up on a lock held longer than lockTimeoutMs (STORE_LOCKED), and takes over a dead process's", async () => {
    const dir = await scratch();
    const lock = join(dir, "state.lock");
    const holder = spawn(process.execPath, [
      "-e",
      `require("fs").writeFileSync(${JSON.stringify(lock)}, process.pid + "\\n", { flag: "wx" }); console.log("held"); setTimeout(() => {}, 30000);`,
    ]);
    await new Promise((resolve) => holder.stdout.once("data", resolve));
    const store = fileStore(dir, { lockTimeoutMs: 300 });
    const refusal = await store.load().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ClientError);
    expect(refusal).toMatchObject({ code: "STORE_LOCKED" });
    await expect(store.save(stateOf("mallory:1"))).rejects.toMatchObject({ code: "STORE_LOCKED" });
    const exited = new Promise((resolve) => holder.once("exit", resolve));
    holder.kill("SIGKILL");
    await exited;
    // The holder died without removing its lock: its pid is gone, so the lock is stale.
    expect(await readFile(lock, "utf8")).toBe(`${holder.pid}\n`);
    expect(await store.load()).toBeUndefined();
    await store.save(stateOf("alice:1"));
    expect(await readdir(dir)).toEqual(["state.json"]);
  });

  it("creates nothing to load from a directory that does not exist", async () => {
    const dir = join(await scratch(), "absent");
    expect(await fileStore(dir).load()).toBeUndefined();
    await expect(stat(dir)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("takes the lock again for work a transaction left running after it ended", async () => {
    const dir = await scratch();
    const store = fileStore(dir);
    const other = fileStore(dir);
    await store.save(stateOf("alice:1"));
    // A promise chained inside a transaction runs in its async context once it has let go, as a
    // background task the client starts from inside a change does.
    let startLater: () => void = () => undefined;
    const later = new Promise<void>((resolve) => {
      startLater = resolve;
    });
    let laterSave: Promise<void> | undefined;
    await store.transaction?.(async () => {
      laterSave = later.then(() => store.save(stateOf("alice:3")));
    });
    const order: string[] = [];
    let inside: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => {
      inside = resolve;
    });
    const holding = other.transaction?.(async () => {
      inside();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await other.save(stateOf("alice:2"));
      order.push("other saved");
    });
    await entered;
    startLater();
    await laterSave;
    order.push("later saved");
    await holding;
    expect(order).toEqual(["other saved", "later saved"]);
    expect(await other.load()).toEqual(stateOf("alice:3"));
  });

  it("reports a state file that is not JSON as BAD_STATE", async () => {
    const dir = await scratch();
    await writeFile(join(dir, "state.json"), "{not json", { mode: 0o600 });
    await expect(fileStore(dir).load()).rejects.toMatchObject({ code: "BAD_STATE" });
  });

  it("checks its arguments", () => {
    expect(() => fileStore("")).toThrow(TypeError);
    expect(() => fileStore("/tmp/x", { lockTimeoutMs: -1 })).toThrow(RangeError);
  });
});
