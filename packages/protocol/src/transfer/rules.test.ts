import { describe, expect, it } from "vitest";
import { SvcError } from "../errors.js";
import { checkChunkSeq, checkForVersion, nextStreamStatus, requireActive } from "./rules.js";
import { STREAM_STATUSES, type StreamStatus } from "./schemas.js";

function refusal(run: () => unknown): SvcError {
  try {
    run();
  } catch (error) {
    if (error instanceof SvcError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("checkChunkSeq", () => {
  it("accepts exactly lastSeqAcked + 1", () => {
    expect(() => checkChunkSeq(0n, 1n)).not.toThrow();
    expect(() => checkChunkSeq(2n ** 63n, 2n ** 63n + 1n)).not.toThrow();
  });

  it("refuses a replay and a gap with 409 carrying lastSeqAcked", () => {
    const replay = refusal(() => checkChunkSeq(5n, 5n));
    expect([replay.code, replay.status, replay.body().lastSeqAcked]).toEqual([
      "SVC_REPLAY",
      409,
      "5",
    ]);
    const gap = refusal(() => checkChunkSeq(5n, 7n));
    expect([gap.code, gap.status, gap.body().lastSeqAcked]).toEqual(["SVC_OUT_OF_ORDER", 409, "5"]);
  });
});

describe("nextStreamStatus", () => {
  const allowed: Array<[StreamStatus | undefined, string, StreamStatus]> = [
    [undefined, "start", "active"],
    ["active", "pause", "paused"],
    ["paused", "resume", "active"],
    ["active", "finish", "finished"],
    ["paused", "finish", "finished"],
    ["active", "abort", "aborted"],
    ["paused", "abort", "aborted"],
    ["active", "rekey", "active"],
    ["paused", "rekey", "paused"],
  ];

  it.each(allowed)("%s --%s--> %s", (from, message, to) => {
    expect(nextStreamStatus(from, message as "start")).toBe(to);
  });

  it("refuses every other transition with 409 SVC_INVALID_TRANSITION", () => {
    const messages = ["start", "pause", "resume", "finish", "abort", "rekey"] as const;
    let refused = 0;
    for (const from of [undefined, ...STREAM_STATUSES]) {
      for (const message of messages) {
        if (allowed.some(([f, m]) => f === from && m === message)) continue;
        const error = refusal(() => nextStreamStatus(from, message));
        expect([error.code, error.status]).toEqual(["SVC_INVALID_TRANSITION", 409]);
        refused++;
      }
    }
    expect(refused).toBe(5 * 6 - allowed.length);
  });

  it("accepts chunks only on an active stream", () => {
    expect(() => requireActive("active")).not.toThrow();
    for (const status of ["paused", "finished", "aborted"] as const) {
      expect(refusal(() => requireActive(status)).code).toBe("SVC_INVALID_TRANSITION");
    }
  });
});

describe("checkForVersion", () => {
  const streamId = "3Kg-cXsfZOsUEFenQVozCg";
  const key = "CrfseSde3FyElFjV3bntlfwCpmKqqvY2FWR1ojg4SqU=";
  const sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

  it("keeps a version 1 stream's key and SHA-256 where its start put them", () => {
    expect(refusal(() => checkForVersion(1, { type: "rekey", streamId, key }))).toMatchObject({
      code: "SVC_INVALID_TRANSITION",
      status: 409,
    });
    expect(refusal(() => checkForVersion(1, { type: "finish", streamId, sha256 }))).toMatchObject({
      code: "SVC_BAD_REQUEST",
      status: 400,
    });
    expect(() => checkForVersion(1, { type: "finish", streamId })).not.toThrow();
  });

  it("takes a version 2 stream's SHA-256 from its finish, and new keys", () => {
    expect(refusal(() => checkForVersion(2, { type: "finish", streamId }))).toMatchObject({
      code: "SVC_BAD_REQUEST",
      status: 400,
    });
    expect(() => checkForVersion(2, { type: "finish", streamId, sha256 })).not.toThrow();
    expect(() => checkForVersion(2, { type: "rekey", streamId, key })).not.toThrow();
    expect(() => checkForVersion(2, { type: "pause", streamId })).not.toThrow();
  });
});
