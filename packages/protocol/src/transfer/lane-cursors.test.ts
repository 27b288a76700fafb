import { describe, expect, it } from "vitest";
import { refusal } from "../test-support/refusal.js";
import { LaneCursors } from "./lane-cursors.js";

describe("LaneCursors", () => {
  it("moves each lane on by exactly one seq", () => {
    const cursors = new LaneCursors(2);
    cursors.accept(1, 1n);
    cursors.accept(1, 2n);
    cursors.accept(0, 1n);
    expect(cursors.lastSeqAcked).toEqual([1n, 2n]);
    expect(cursors.toResumeLanes()).toEqual([
      { laneId: 0, lastSeqAcked: "1" },
      { laneId: 1, lastSeqAcked: "2" },
    ]);
  });

  it("refuses a replay and a gap with 409 and the lane's lastSeqAcked, unchanged", () => {
    const cursors = new LaneCursors(1, [3n]);
    const replay = refusal(() => cursors.accept(0, 3n));
    const gap = refusal(() => cursors.accept(0, 5n));
    expect([replay.code, replay.status, replay.extra.lastSeqAcked]).toEqual([
      "SVC_REPLAY",
      409,
      "3",
    ]);
    expect([gap.code, gap.status, gap.extra.lastSeqAcked]).toEqual(["SVC_OUT_OF_ORDER", 409, "3"]);
    expect(cursors.last(0)).toBe(3n);
  });

  it("refuses a lane outside the stream with a 400", () => {
    const cursors = new LaneCursors(2);
    for (const laneId of [2, -1, 0.5]) {
      expect(refusal(() => cursors.accept(laneId, 1n)).status).toBe(400);
    }
  });

  it("reads a ResumeState's lanes back, an unlisted lane at 0", () => {
    const cursors = LaneCursors.fromResumeLanes(3, [
      { laneId: 2, lastSeqAcked: "18446744073709551615" },
      { laneId: 0, lastSeqAcked: "4" },
    ]);
    expect(cursors.lastSeqAcked).toEqual([4n, 0n, 2n ** 64n - 1n]);
    expect(LaneCursors.fromResumeLanes(3, cursors.toResumeLanes())).toEqual(cursors);
  });

  it("refuses a ResumeState with a lane outside the stream, a lane twice or a bad seq", () => {
    for (const lanes of [
      [{ laneId: 3, lastSeqAcked: "1" }],
      [
        { laneId: 1, lastSeqAcked: "1" },
        { laneId: 1, lastSeqAcked: "2" },
      ],
      [{ laneId: 0, lastSeqAcked: "01" }],
    ]) {
      expect(refusal(() => LaneCursors.fromResumeLanes(3, lanes)).status).toBe(400);
    }
  });

  it("refuses a lane count or starting cursors that do not fit", () => {
    expect(() => new LaneCursors(0)).toThrow(RangeError);
    expect(() => new LaneCursors(2, [1n])).toThrow(RangeError);
  });
});
