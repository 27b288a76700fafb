import type { StreamRecord } from "./transfer-store.js";

export interface LaneAdvance {
  laneId: number;
  seq: bigint;
}

/**
 * advanceLane's compare-and-set, for several advances applied one after another: each moves its
 * lane from seq - 1 to seq while the stream is active, else is refused. `changed` is the record
 * after them (undefined when none moved), `advanced` whether each did.
 */
export function applyAdvances(
  stream: StreamRecord,
  batch: readonly LaneAdvance[],
): { changed: StreamRecord | undefined; advanced: boolean[] } {
  const lastSeqAcked = [...stream.lastSeqAcked];
  const advanced = batch.map(({ laneId, seq }) => {
    if (stream.status !== "active" || lastSeqAcked[laneId] !== seq - 1n) return false;
    lastSeqAcked[laneId] = seq;
    return true;
  });
  return {
    changed: advanced.includes(true) ? { ...stream, lastSeqAcked } : undefined,
    advanced,
  };
}
