/** How long a chunk waits for its lane's previous chunk to arrive before it is judged. */
export const ARRIVAL_GRACE_MS = 2_000;

/** How far ahead of the lane's cursor a chunk may be and still wait for the ones before it. */
const MAX_WAIT_AHEAD = 16n;

interface Lane {
  /** The requests under way, by seq: each promise resolves when its request ends. */
  underWay: Map<bigint, Promise<void>>;
  /** The highest seq whose request has ended while the lane had others under way. */
  highestEnded: bigint;
  /** Chunks waiting for a request for this seq to arrive. */
  awaited: Map<bigint, Set<(ended: Promise<void>) => void>>;
}

/**
 * The chunk requests of each lane under way in this receiver, so that a sender may send a lane's
 * next chunk before the previous one is acknowledged: while chunk N is synced to disk, chunk
 * N + 1 crosses the network. Two requests sent together on two connections may arrive in either
 * order, so chunk N + 1 waits for the request for N to end (and, if it has not arrived, up to
 * ARRIVAL_GRACE_MS for it to arrive) before its seq is judged.
 */
export class LaneArrivals {
  readonly #lanes = new Map<string, Lane>();
  readonly #graceMs: number;

  constructor(graceMs: number) {
    this.#graceMs = graceMs;
  }

  /** Marks the request for `seq` of lane `key` under way; call the returned function when it ends. */
  arrive(key: string, seq: bigint): () => void {
    const lane = this.#lane(key);
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    lane.underWay.set(seq, ended);
    for (const wake of lane.awaited.get(seq) ?? []) wake(ended);
    lane.awaited.delete(seq);
    return () => {
      end();
      if (seq > lane.highestEnded) lane.highestEnded = seq;
      // A second request for the same seq may have taken the entry meanwhile: it is its own.
      if (lane.underWay.get(seq) === ended) lane.underWay.delete(seq);
      if (lane.underWay.size === 0 && lane.awaited.size === 0) this.#lanes.delete(key);
    };
  }

  /**
   * Resolves when chunk `seq` of lane `key` may be judged: at once when `acked` (the lane's
   * lastSeqAcked as last read) is seq - 1 or more, else once the request for seq - 1 has ended,
   * or when none has arrived within the grace period.
   */
  async previous(key: string, seq: bigint, acked: bigint): Promise<void> {
    const wanted = seq - 1n;
    if (acked >= wanted || wanted - acked > MAX_WAIT_AHEAD) return;
    const lane = this.#lane(key);
    if (lane.highestEnded >= wanted) return;
    await (lane.underWay.get(wanted) ?? this.#arrival(key, lane, wanted));
  }

  #arrival(key: string, lane: Lane, seq: bigint): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiting = lane.awaited.get(seq) ?? new Set();
      lane.awaited.set(seq, waiting);
      const wake = (ended: Promise<void>) => {
        clearTimeout(timer);
        resolve(ended);
      };
      const timer = setTimeout(() => {
        waiting.delete(wake);
        if (waiting.size === 0) lane.awaited.delete(seq);
        if (lane.underWay.size === 0 && lane.awaited.size === 0) this.#lanes.delete(key);
        resolve();
      }, this.#graceMs);
      waiting.add(wake);
    });
  }

  #lane(key: string): Lane {
    let lane = this.#lanes.get(key);
    if (lane === undefined) {
      lane = { underWay: new Map(), highestEnded: 0n, awaited: new Map() };
      this.#lanes.set(key, lane);
    }
    return lane;
  }
}
