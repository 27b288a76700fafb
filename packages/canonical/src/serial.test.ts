import { describe, expect, it } from "vitest";
import { KeyedSerial, SerialQueue } from "./serial.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("SerialQueue", () => {
  it("runs tasks one at a time in call order, and goes on after a failed one", async () => {
    const queue = new SerialQueue();
    const log: string[] = [];
    const task =
      (name: string, fail = false) =>
      async () => {
        log.push(`${name} start`);
        await tick();
        log.push(`${name} end`);
        if (fail) throw new Error(name);
        return name;
      };
    const first = queue.run(task("1"));
    const failed = queue.run(task("2", true));
    const third = queue.run(task("3"));
    await expect(failed).rejects.toThrow("2");
    expect(await Promise.all([first, third])).toEqual(["1", "3"]);
    expect(log).toEqual(["1 start", "1 end", "2 start", "2 end", "3 start", "3 end"]);
  });
});

describe("KeyedSerial", () => {
  it("runs one key's tasks one at a time in call order, other keys alongside", async () => {
    const serial = new KeyedSerial();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`${name} start`);
      await tick();
      log.push(`${name} end`);
      return name;
    };
    const results = await Promise.all([
      serial.run("a", task("a1")),
      serial.run("a", task("a2")),
      serial.run("b", task("b1")),
    ]);
    expect(results).toEqual(["a1", "a2", "b1"]);
    expect(log.indexOf("a1 end")).toBeLessThan(log.indexOf("a2 start"));
    expect(log.indexOf("b1 start")).toBeLessThan(log.indexOf("a1 end"));
  });

  it("goes on after a failed task and forgets idle keys", async () => {
    const serial = new KeyedSerial();
    const failed = serial.run("a", async () => {
      throw new Error("no");
    });
    const next = serial.run("a", async () => "next");
    await expect(failed).rejects.toThrow("no");
    await expect(next).resolves.toBe("next");
    await tick();
    expect(serial.size).toBe(0);
  });
});
