import { describe, expect, it } from "vitest";
import { BodyPool } from "./body-pool.js";

describe("BodyPool", () => {
  it("hands a given-back buffer out again for the same length, and only its own", () => {
    const pool = new BodyPool(1024);
    const first = pool.take(100);
    expect(first.length).toBe(100);
    pool.give(first);
    pool.give(first);
    expect(pool.take(100)).toBe(first);
    expect(pool.take(100)).not.toBe(first);
    pool.give(Buffer.alloc(100));
    pool.give(new Uint8Array(100));
    const other = pool.take(100);
    expect(other).not.toBe(first);
    expect(pool.take(50).length).toBe(50);
  });

  it("keeps no more than its limit idle", () => {
    const pool = new BodyPool(250);
    const buffers = [pool.take(100), pool.take(100), pool.take(100)];
    for (const buffer of buffers) pool.give(buffer);
    const again = [pool.take(100), pool.take(100), pool.take(100)];
    expect(again.filter((buffer) => buffers.includes(buffer))).toHaveLength(2);
  });
});
