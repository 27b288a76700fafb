// @ts-check
/**
 * The shared memory between the server's thread and the embedded database's thread: four int32
 * control slots, then two data areas of equal size, for the request and for the answer. Whose turn
 * it is lives in `state`; the side that hands over the turn sets the other slots first.
 */
export const CHANNEL = Object.freeze({
  state: 0,
  /** Set by the server's thread: what the database thread is to do (OP). */
  op: 1,
  /** Bytes used in the request or answer area, set by whichever side hands over. */
  length: 2,
  /** Set by the database thread: how the request went (STATUS). */
  status: 3,
  controlInts: 4,
  dataOffset: 16,
});

export const STATE = Object.freeze({ server: 0, worker: 1 });

export const OP = Object.freeze({
  /** A piece of a request; more follow. */
  input: 1,
  /** The last piece of a request: run it and answer the first piece of its output. */
  execute: 2,
  /** The next piece of the output. */
  next: 3,
  /** Leave the shared-memory loop and take one message (dump, close). */
  yield: 4,
});

export const STATUS = Object.freeze({ done: 0, more: 1, ack: 2, failed: 3 });
