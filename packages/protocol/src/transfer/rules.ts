import { badRequest, SvcError } from "../errors.js";
import type { ControlMessage, StreamStatus, TransferVersion } from "./schemas.js";

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
  rekey: { active: "active", paused: "paused" },
};

/**
 * The status a stream moves to on a control message: start makes a new stream active; active and
 * paused alternate; either ends finished or aborted, which are final; rekey keeps the status.
 * `finish` is only valid once every byte arrived and the SHA-256 matches, which the receiver
 * checks before calling this.
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

/**
 * What a stream's version asks of a control message for it: a version 1 stream keeps its start's
 * key and SHA-256 (409 for a rekey, 400 for a finish naming a SHA-256); a version 2 finish names
 * the file's SHA-256 (400 without).
 */
export function checkForVersion(version: TransferVersion, message: ControlMessage): void {
  if (message.type === "rekey" && version === 1) {
    throw new SvcError("SVC_INVALID_TRANSITION", "a version 1 stream keeps its start's key");
  }
  if (message.type !== "finish") return;
  if (version === 1 && message.sha256 !== undefined) {
    throw badRequest("a version 1 stream's finish names no sha256: its start did");
  }
  if (version === 2 && message.sha256 === undefined) {
    throw badRequest("a version 2 stream's finish must name the file's sha256");
  }
}
