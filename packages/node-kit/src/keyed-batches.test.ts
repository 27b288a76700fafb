import { KeyedSerial } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { KeyedBatches } from "./keyed-batches.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("KeyedBatches", () => {
  it("gives the items that queue while a batch runs to the next batch, in order", async () => {
    const applied: string[][] = [];
    const batches = new KeyedBatches<string, string>(new KeyedSerial(), async (key, items) => {
      applied.push([key, ...items]);
      await tick();
      return items.map((item) => `${item}!`);
    });
    const first = batches.add("a", "1");
    const rest = ["2", "3", "4"].map((item) => batches.add("a", item));
    const other = batches.add("b", "x");
    expect(await first).toBe("1!");
    const late = batches.add("a", "5");
    expect(await Promise.all([...rest, late, other])).toEqual(["2!", "3!", "4!", "5!", "x!"]);
    expect(applied).toEqual([
      ["a", "1", "2", "3", "4"],
      ["b", "x"],
      ["a", "5"],
    ]);
  });

  it("rejects every item of a failed batch, and goes on with the next", async () => {
    let calls = 0;
    const batches = new KeyedBatches<number, number>(new KeyedSerial(), async (_key, items) => {
      calls++;
      if (calls === 1) throw new Error("disk full");
      return items.map((item) => item * 2);
    });
    const failed = [batches.add("a", 1), batches.add("a", 2)];
    for (const each of failed) await expect(each).rejects.toThrow("disk full");
    expect(await batches.add("a", 3)).toBe(6);
  });
});
