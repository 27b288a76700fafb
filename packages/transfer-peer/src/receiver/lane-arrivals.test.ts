import { describe, expect, it } from "vitest";
import { LaneArrivals } from "./lane-arrivals.js";

const judged = async (arrivals: LaneArrivals, seq: bigint, acked: bigint) => {
  let done = false;
  const waiting = arrivals.previous("s/0", seq, acked).then(() => {
    done = true;
  });
  await new Promise((resolve) => setTimeout(resolve, 5));
  return { done: () => done, waiting };
};

describe("LaneArrivals", () => {
  it("judges a chunk at once when the lane's cursor is right behind it", async () => {
    const arrivals = new LaneArrivals(60_000);
    arrivals.arrive("s/0", 4n);
    expect((await judged(arrivals, 5n, 4n)).done()).toBe(true);
    expect((await judged(arrivals, 2n, 7n)).done()).toBe(true);
  });

  it("holds a chunk until the request for the lane's previous seq has ended", async () => {
    const arrivals = new LaneArrivals(60_000);
    const endFirst = arrivals.arrive("s/0", 1n);
    arrivals.arrive("s/0", 2n);
    const second = await judged(arrivals, 2n, 0n);
    expect(second.done()).toBe(false);
    expect((await judged(arrivals, 1n, 0n)).done()).toBe(true);
    endFirst();
    await second.waiting;
    // Ended, seq 1 answers for the lane until no request of it is under way.
    expect((await judged(arrivals, 2n, 0n)).done()).toBe(true);
  });

  it("holds a chunk that came first until its predecessor arrives and ends", async () => {
    const arrivals = new LaneArrivals(60_000);
    arrivals.arrive("s/0", 3n);
    const third = await judged(arrivals, 3n, 1n);
    expect(third.done()).toBe(false);
    const endSecond = arrivals.arrive("s/0", 2n);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(third.done()).toBe(false);
    endSecond();
    await third.waiting;
  });

  it("judges a chunk whose predecessor never arrives after the grace period", async () => {
    const arrivals = new LaneArrivals(50);
    arrivals.arrive("s/0", 3n);
    const third = await judged(arrivals, 3n, 1n);
    expect(third.done()).toBe(false);
    await third.waiting;
  });

  it("does not hold a chunk far ahead of the lane's cursor", async () => {
    const arrivals = new LaneArrivals(60_000);
    expect((await judged(arrivals, 100n, 1n)).done()).toBe(true);
  });
});
