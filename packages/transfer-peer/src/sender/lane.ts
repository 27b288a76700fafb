import type { StreamPlan } from "@svc/protocol/transfer";
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
 * A lane's chunks in flight at once: while the receiver syncs one to disk before its ack, the
 * next crosses the network, instead of the lane waiting a sync per chunk with nothing to send.
 */
export const LANE_DEPTH = 2;

/** Envelope buffers a lane's reader needs: one per chunk in flight and one read ahead. */
export const LANE_BUFFERS = LANE_DEPTH + 1;

interface Sent {
  seq: bigint;
  acked: Promise<bigint>;
  /** Sent while an earlier chunk of the lane was in flight. */
  behind: boolean;
}

/**
 * Sends a lane's chunks from lastSeqAcked + 1, LANE_DEPTH of them in flight, reading and sealing
 * the next one meanwhile. An answer names the receiver's lastSeqAcked, and the lane goes on from
 * there: past chunks the receiver already has, back to the first one it lacks (once the chunks
 * still in flight have been answered, their buffers free).
 */
export async function runLane(run: LaneRun): Promise<void> {
  const { laneId, plan, cursors, reader, gate, signal } = run;
  const last = BigInt(plan.chunksInLane(laneId));
  let ahead: { seq: bigint; chunk: Promise<PreparedChunk> } | undefined;
  let inFlight: Sent[] = [];
  // One chunk alone until the lane has an answer: two sent at once on fresh connections may
  // reach the receiver in the wrong order, and the second would be refused.
  let depth = 1;
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
  const send = async (seq: bigint): Promise<void> => {
    const chunk = await take(seq);
    ahead = seq < last ? prepare(seq + 1n) : undefined;
    const acked = gate.run(() => run.send(chunk, signal), signal);
    // Answered in order below; one that fails after another did is not left unhandled.
    acked.catch(() => undefined);
    inFlight.push({ seq, acked, behind: inFlight.length > 0 });
  };

  while (lastOf(cursors, laneId) < last) {
    signal.throwIfAborted();
    let next = (inFlight.at(-1)?.seq ?? lastOf(cursors, laneId)) + 1n;
    for (; inFlight.length < depth && next <= last; next++) await send(next);
    const [oldest, ...rest] = inFlight;
    if (oldest === undefined) break;
    inFlight = rest;
    const acked = await oldest.acked;
    if (acked > last) {
      throw new TransferError(
        "BAD_RESPONSE",
        `lane ${laneId}: the receiver acknowledged seq ${acked} of the lane's ${last} chunks`,
      );
    }
    // A chunk sent behind another may have reached the receiver before it (their retries after
    // a reconnect cross): an answer older than the one before it is stale, and the chunk goes
    // again, alone. Alone, the receiver's answer is the lane's cursor, even a lower one.
    const stale = oldest.behind && acked < lastOf(cursors, laneId);
    if (!stale) cursors[laneId] = acked;
    run.onAck();
    if (!stale) stalls = acked >= oldest.seq ? 0 : stalls + 1;
    if (acked === oldest.seq) {
      depth = LANE_DEPTH;
      continue;
    }
    if (stalls > MAX_STALLS) {
      throw new TransferError(
        "BAD_RESPONSE",
        `lane ${laneId}: the receiver refused seq ${oldest.seq} ${stalls} times in a row, lastSeqAcked ${acked}`,
      );
    }
    // The lane goes on from the receiver's cursor: the chunks in flight are answered first.
    await Promise.allSettled(inFlight.map(({ acked }) => acked));
    inFlight = [];
    depth = 1;
  }
}

function lastOf(cursors: readonly bigint[], laneId: number): bigint {
  return cursors[laneId] ?? 0n;
}
