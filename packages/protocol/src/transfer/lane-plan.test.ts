import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { refusal } from "../test-support/refusal.js";
import { planStream } from "./lane-plan.js";

const shape = fc.record({
  size: fc.integer({ min: 0, max: 5000 }),
  chunkBytes: fc.integer({ min: 1, max: 700 }),
  lanes: fc.integer({ min: 1, max: 9 }),
});

/** Every lane's chunks in seq order, as the plan places them. */
function laneChunks(plan: ReturnType<typeof planStream>) {
  return Array.from({ length: plan.lanes }, (_, laneId) =>
    Array.from({ length: plan.chunksInLane(laneId) }, (_, i) => {
      const planned = plan.chunkAt(laneId, BigInt(i + 1));
      if (!planned) throw new Error(`lane ${laneId} seq ${i + 1} is not planned`);
      return planned;
    }),
  );
}

describe("planStream", () => {
  it("covers every byte exactly once, in chunks of chunkBytes but the last", () => {
    fc.assert(
      fc.property(shape, (s) => {
        const plan = planStream(s);
        const chunks = laneChunks(plan).flat();
        expect(chunks).toHaveLength(plan.chunkCount);
        const covered = new Uint8Array(s.size);
        for (const { offset, length } of chunks) {
          expect(length).toBeGreaterThan(0);
          expect(length === s.chunkBytes || offset + length === s.size).toBe(true);
          for (let i = offset; i < offset + length; i++) covered[i] = (covered[i] as number) + 1;
        }
        expect(covered.every((count) => count === 1)).toBe(true);
      }),
    );
  });

  it("puts chunk i on lane i mod lanes with seq floor(i / lanes) + 1", () => {
    fc.assert(
      fc.property(shape, (s) => {
        const plan = planStream(s);
        for (let i = 0; i < plan.chunkCount; i++) {
          const planned = plan.chunkAt(i % s.lanes, BigInt(Math.floor(i / s.lanes) + 1));
          expect(planned?.offset).toBe(i * s.chunkBytes);
        }
      }),
    );
  });

  it("has nothing past the end of a lane, before seq 1 or outside the lanes", () => {
    fc.assert(
      fc.property(shape, (s) => {
        const plan = planStream(s);
        for (let laneId = 0; laneId < s.lanes; laneId++) {
          expect(plan.chunkAt(laneId, BigInt(plan.chunksInLane(laneId) + 1))).toBeUndefined();
          expect(plan.chunkAt(laneId, 0n)).toBeUndefined();
        }
        expect(plan.chunkAt(s.lanes, 1n)).toBeUndefined();
        expect(plan.chunkAt(0.5, 1n)).toBeUndefined();
        expect(plan.chunkAt(0, 2n ** 64n - 1n)).toBeUndefined();
      }),
    );
  });

  it("counts acked bytes as the sum of acked chunks; complete exactly when all are acked", () => {
    const progress = shape.chain((s) => {
      const plan = planStream(s);
      const acked = Array.from({ length: s.lanes }, (_, laneId) =>
        fc.integer({ min: 0, max: plan.chunksInLane(laneId) }).map(BigInt),
      );
      return fc.tuple(fc.constant(plan), fc.tuple(...acked));
    });
    fc.assert(
      fc.property(progress, ([plan, lastSeqAcked]) => {
        const chunks = laneChunks(plan);
        const expected = chunks
          .flatMap((lane, laneId) => lane.slice(0, Number(lastSeqAcked[laneId])))
          .reduce((sum, chunk) => sum + chunk.length, 0);
        expect(plan.bytesAcked(lastSeqAcked)).toBe(expected);
        const complete = chunks.every(
          (lane, laneId) => lane.length === Number(lastSeqAcked[laneId]),
        );
        expect(plan.isComplete(lastSeqAcked)).toBe(complete);
        expect(complete).toBe(expected === plan.size);
        expect(plan.isComplete(chunks.map((lane) => BigInt(lane.length)))).toBe(true);
      }),
    );
  });

  it("plans no chunk for a zero-byte file, which is complete from the start", () => {
    const plan = planStream({ size: 0, chunkBytes: 1024, lanes: 4 });
    expect(plan.chunkCount).toBe(0);
    expect(plan.chunkAt(0, 1n)).toBeUndefined();
    expect(plan.isComplete([0n, 0n, 0n, 0n])).toBe(true);
    expect(plan.bytesAcked([0n, 0n, 0n, 0n])).toBe(0);
  });

  it("places a short last chunk", () => {
    const plan = planStream({ size: 10, chunkBytes: 4, lanes: 2 });
    expect([plan.chunksInLane(0), plan.chunksInLane(1)]).toEqual([2, 1]);
    expect(plan.chunkAt(0, 2n)).toEqual({ offset: 8, length: 2 });
    expect(plan.bytesAcked([2n, 0n])).toBe(6);
  });

  it("refuses progress that does not fit the plan", () => {
    const plan = planStream({ size: 10, chunkBytes: 4, lanes: 2 });
    expect(() => plan.bytesAcked([1n])).toThrow(RangeError);
    expect(() => plan.isComplete([3n, 0n])).toThrow(RangeError);
  });

  it("refuses a shape it cannot plan with a 400", () => {
    for (const bad of [
      { size: -1, chunkBytes: 1, lanes: 1 },
      { size: 1, chunkBytes: 0, lanes: 1 },
      { size: 1, chunkBytes: 1, lanes: 0 },
      { size: 1, chunkBytes: 1, lanes: 2 ** 32 + 1 },
      { size: 0.5, chunkBytes: 1, lanes: 1 },
    ]) {
      expect(refusal(() => planStream(bad)).status).toBe(400);
    }
  });
});
