import type { StreamPlan } from "@svc/transfer-lanes";
import type { ChunkReader, PreparedChunk } from "./chunk-reader.js";
import { TransferError } from "./errors.js";
import type { PauseGate } from "./pause-gate.js";

export interface LaneRun {
  laneId: number;
  plan: StreamPlan;
  /** Every lane's lastSeqAcked; this lane writes its own entry only. */
  cursors: bigint[];
  reader: ChunkReader;
  gate: PauseGate;
  /** Sends a chunk; the lane's lastSeqAcked by the receiver's answer. */
  send(chunk: PreparedChunk, signal: AbortSignal): Promise<bigint>;
  /** Called after every answer, once the cursor is updated. */
  onAck(): void;
  signal: AbortSignal;
}

/** Answers in a row that do not take the lane past the chunk sent, before giving up. */
const MAX_STALLS = 3;

/**
 * Sends a lane's chunks one at a time from lastSeqAcked + 1, reading and sealing the next chunk
 * while the current one is in flight. An answer names the receiver's lastSeqAcked, and the lane
 * goes on from there: past chunks the receiver already has, back to the first one it lacks.
 */
export async function runLane(run: LaneRun): Promise<void> {
  const { laneId, plan, cursors, reader, gate, signal } = run;
  const last = BigInt(plan.chunksInLane(laneId));
  let ahead: { seq: bigint; chunk: Promise<PreparedChunk> } | undefined;
  let stalls = 0;
  const prepare = (seq: bigint) => {
    const chunk = reader.prepare(laneId, seq);
    // Read ahead and then maybe not wanted: its failure is seen when (if) it is taken.
    chunk.catch(() => undefined);
    return { seq, chunk };
  };
  const take = async (seq: bigint): Promise<PreparedChunk> => {
    const taken = ahead;
    if (taken?.seq === seq) return taken.chunk;
    // The lane's read buffer is free only once the chunk read ahead is sealed.
    await taken?.chunk.catch(() => undefined);
    return prepare(seq).chunk;
  };

  for (let cursor = lastOf(cursors, laneId); cursor < last; cursor = lastOf(cursors, laneId)) {
    signal.throwIfAborted();
    const seq = cursor + 1n;
    const chunk = await take(seq);
    ahead = seq < last ? prepare(seq + 1n) : undefined;
    const acked = await gate.run(() => run.send(chunk, signal), signal);
    if (acked > last) {
      throw new TransferError(
        "BAD_RESPONSE",
        `lane ${laneId}: the receiver acknowledged seq ${acked} of the lane's ${last} chunks`,
      );
    }
    stalls = acked >= seq ? 0 : stalls + 1;
    if (stalls > MAX_STALLS) {
      throw new TransferError(
        "BAD_RESPONSE",
        `lane ${laneId}: the receiver refused seq ${seq} ${stalls} times in a row, lastSeqAcked ${acked}`,
      );
    }
    cursors[laneId] = acked;
    run.onAck();
  }
}

function lastOf(cursors: readonly bigint[], laneId: number): bigint {
  return cursors[laneId] ?? 0n;
}
