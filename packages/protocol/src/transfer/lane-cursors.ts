import { parseDecimalU64 } from "../decimal.js";
import { badRequest } from "../errors.js";
import { assertInteger, MAX_LANE_ID } from "./assert.js";
import { checkChunkSeq } from "./rules.js";
import type { ResumeState } from "./schemas.js";

/** Each lane's lastSeqAcked: the highest seq accepted with every seq before it ("0": none). */
export class LaneCursors {
  readonly lastSeqAcked: bigint[];

  constructor(lanes: number, lastSeqAcked?: readonly bigint[]) {
    assertInteger("lanes", lanes, MAX_LANE_ID + 1, 1);
    if (lastSeqAcked && lastSeqAcked.length !== lanes) {
      throw new RangeError(`lastSeqAcked has ${lastSeqAcked.length} lanes, expected ${lanes}`);
    }
    this.lastSeqAcked = lastSeqAcked ? [...lastSeqAcked] : Array(lanes).fill(0n);
  }

  /**
   * The cursors of a ResumeState's lanes; a lane it does not list has accepted nothing. Lanes
   * outside the stream or listed twice are a 400.
   */
  static fromResumeLanes(lanes: number, state: ResumeState["lanes"]): LaneCursors {
    const cursors = new LaneCursors(lanes);
    const seen = new Set<number>();
    for (const { laneId, lastSeqAcked } of state) {
      if (!Number.isInteger(laneId) || laneId < 0 || laneId >= lanes || seen.has(laneId)) {
        throw badRequest(`resume state lane ${laneId} is not one of ${lanes} distinct lanes`);
      }
      const seq = parseDecimalU64(lastSeqAcked);
      if (seq === undefined) throw badRequest(`resume state lane ${laneId}: bad lastSeqAcked`);
      seen.add(laneId);
      cursors.lastSeqAcked[laneId] = seq;
    }
    return cursors;
  }

  /** Moves a lane on by one chunk: seq must be lastSeqAcked + 1 (else 409, see checkChunkSeq). */
  accept(laneId: number, seq: bigint): void {
    checkChunkSeq(this.last(laneId), seq);
    this.lastSeqAcked[laneId] = seq;
  }

  last(laneId: number): bigint {
    const seq = this.lastSeqAcked[laneId];
    if (seq === undefined) {
      throw badRequest(`lane ${laneId} is not one of the stream's ${this.lastSeqAcked.length}`);
    }
    return seq;
  }

  /** ResumeState's `lanes`: every lane, lastSeqAcked as a decimal string. */
  toResumeLanes(): ResumeState["lanes"] {
    return this.lastSeqAcked.map((seq, laneId) => ({ laneId, lastSeqAcked: seq.toString() }));
  }
}
