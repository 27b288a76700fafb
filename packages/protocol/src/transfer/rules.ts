import { SvcError } from "../errors.js";
import type { ControlMessage, StreamStatus } from "./schemas.js";

/**
 * Seq numbers start at 1 per lane and a chunk must carry exactly lastSeqAcked + 1. A refusal
 * carries the lane's lastSeqAcked so that the sender resyncs at once.
 */
export function checkChunkSeq(lastSeqAcked: bigint, seq: bigint): void {
  if (seq === lastSeqAcked + 1n) return;
  const extra = { lastSeqAcked: lastSeqAcked.toString() };
  throw seq <= lastSeqAcked
    ? new SvcError("SVC_REPLAY", `seq ${seq} was already accepted`, { extra })
    : new SvcError("SVC_OUT_OF_ORDER", `seq ${seq} skips ahead of ${lastSeqAcked}`, { extra });
}

const NEXT: Record<
  Exclude<ControlMessage["type"], "start">,
  Partial<Record<StreamStatus, StreamStatus>>
> = {
  pause: { active: "paused" },
  resume: { paused: "active" },
  finish: { active: "finished", paused: "finished" },
  abort: { active: "aborted", paused: "aborted" },
};

/**
 * The status a stream moves to on a control message: start makes a new stream active; active and
 * paused alternate; either ends finished or aborted, which are final. `finish` is only valid once
 * every byte arrived and the SHA-256 matches, which the receiver checks before calling this.
 */
export function nextStreamStatus(
  current: StreamStatus | undefined,
  message: ControlMessage["type"],
): StreamStatus {
  const next =
    message === "start"
      ? current === undefined
        ? "active"
        : undefined
      : current && NEXT[message][current];
  if (next === undefined) {
    throw new SvcError(
      "SVC_INVALID_TRANSITION",
      `${message} is not allowed on a ${current ?? "new"} stream`,
    );
  }
  return next;
}

/** A chunk for a stream that is not active (paused or final) is refused the same way. */
export function requireActive(status: StreamStatus): void {
  if (status !== "active") {
    throw new SvcError("SVC_INVALID_TRANSITION", `the stream is ${status}, not active`);
  }
}
