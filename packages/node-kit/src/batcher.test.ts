import { KeyedSerial } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { createBatcher } from "./batcher.js";

/** A `run` whose batches finish only when the test releases them. */
function controlledRun() {
  const batches: number[][] = [];
  const releases: Array<() => void> = [];
  const run = (inputs: number[]) => {
    batches.push(inputs);
    return new Promise<number[]>((resolve) => {
      releases.push(() => resolve(inputs.map((n) => n * 10)));
    });
  };
  return { run, batches, releases };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("createBatcher", () => {
  it("runs a lone call after one turn of the event loop, in a batch of its own", async () => {
    const { run, batches, releases } = controlledRun();
    const call = createBatcher(run, { concurrency: 2, maxBatch: 8 });
    const answer = call(1);
    expect(batches).toEqual([]);
    await tick();
    expect(batches).toEqual([[1]]);
    releases[0]?.();
    await expect(answer).resolves.toBe(10);
  });

  it("gathers the calls of one round of I/O even when run never yields to I/O", async () => {
    const batches: number[][] = [];
    const call = createBatcher(
      async (inputs: number[]) => {
        batches.push(inputs);
        return inputs;
      },
      { concurrency: 1, maxBatch: 8 },
    );
    // Four callbacks of one loop phase, as requests read from four sockets would be.
    const arriving = [1, 2, 3, 4].map(
      (n) => new Promise((resolve) => setImmediate(() => resolve(call(n)))),
    );
    await expect(Promise.all(arriving)).resolves.toEqual([1, 2, 3, 4]);
    expect(batches).toEqual([[1, 2, 3, 4]]);
  });

  it("groups the calls that wait while every slot is busy, in arrival order", async () => {
    const { run, batches, releases } = controlledRun();
    const call = createBatcher(run, { concurrency: 1, maxBatch: 8 });
    const first = call(1);
    await tick();
    const answers = [2, 3, 4].map(call);
    await tick();
    expect(batches).toEqual([[1]]);
    releases[0]?.();
    await tick();
    expect(batches).toEqual([[1], [2, 3, 4]]);
    releases[1]?.();
    await expect(Promise.all([first, ...answers])).resolves.toEqual([10, 20, 30, 40]);
  });

  it("never runs more batches at once than its concurrency, nor more calls than maxBatch", async () => {
    const { run, batches, releases } = controlledRun();
    const call = createBatcher(run, { concurrency: 2, maxBatch: 3 });
    const answers: Array<Promise<number>> = [];
    for (let i = 0; i < 2; i++) {
      answers.push(call(i));
      await tick();
    }
    for (let i = 2; i < 9; i++) answers.push(call(i));
    await tick();
    expect(batches).toEqual([[0], [1]]);
    releases[0]?.();
    await tick();
    expect(batches).toEqual([[0], [1], [2, 3, 4]]);
    releases[1]?.();
    await tick();
    expect(batches.at(-1)).toEqual([5, 6, 7]);
    releases[2]?.();
    await tick();
    expect(batches.at(-1)).toEqual([8]);
    for (const release of releases.slice(3)) release();
    await expect(Promise.all(answers)).resolves.toEqual(
      Array.from({ length: 9 }, (_, i) => i * 10),
    );
  });

  it("rejects every call of a failing batch and goes on with the next", async () => {
    let fail = true;
    const call = createBatcher(
      async (inputs: number[]) => {
        if (fail) {
          fail = false;
          throw new Error("statement failed");
        }
        return inputs;
      },
      { concurrency: 1, maxBatch: 8 },
    );
    const failing = [call(1), call(2)];
    for (const answer of failing) await expect(answer).rejects.toThrow("statement failed");
    await expect(call(3)).resolves.toBe(3);
  });

  it("rejects a batch that answers the wrong number of results", async () => {
    const call = createBatcher(async () => [], { concurrency: 1, maxBatch: 8 });
    await expect(call(1)).rejects.toThrow("0 results for 1 calls");
  });

  it("with start 'now', runs a lone call at once and takes the calls that wait next", async () => {
    const { run, batches, releases } = controlledRun();
    const call = createBatcher(run, { concurrency: 1, maxBatch: 8, start: "now" });
    const first = call(1);
    expect(batches).toEqual([[1]]);
    const answers = [2, 3].map(call);
    releases[0]?.();
    await tick();
    expect(batches).toEqual([[1], [2, 3]]);
    releases[1]?.();
    await expect(Promise.all([first, ...answers])).resolves.toEqual([10, 20, 30]);
  });

  it("takes a batch when its turn comes, and keeps the turn it claimed on arrival", async () => {
    const serial = new KeyedSerial();
    const order: string[] = [];
    let idle = 0;
    const call = createBatcher(
      async (inputs: string[]) => {
        order.push(inputs.join(""));
        await tick();
        return inputs;
      },
      {
        concurrency: 2,
        maxBatch: Number.POSITIVE_INFINITY,
        start: "now",
        turn: (task) => serial.run("k", task),
        onIdle: () => idle++,
      },
    );
    const first = ["a", "b"].map(call);
    await tick();
    // Arrives while the first batch runs: claims the next turn before "other" is queued.
    const late = [call("c")];
    const other = serial.run("k", async () => void order.push("other"));
    late.push(call("d"));
    await Promise.all([...first, ...late, other]);
    expect(order).toEqual(["ab", "cd", "other"]);
    expect(idle).toBe(1);
  });

  it("refuses nonsensical limits", () => {
    expect(() => createBatcher(async (x) => x, { concurrency: 0, maxBatch: 1 })).toThrow(
      RangeError,
    );
    expect(() => createBatcher(async (x) => x, { concurrency: 1, maxBatch: 0.5 })).toThrow(
      RangeError,
    );
    expect(() =>
      createBatcher(async (x) => x, { concurrency: 1, maxBatch: Number.NEGATIVE_INFINITY }),
    ).toThrow(RangeError);
  });
});
