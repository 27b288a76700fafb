export interface BatcherOptions {
  /** Most batches in flight at once (each holds one pooled connection while it runs). */
  concurrency: number;
  /** Most calls in one batch (a positive integer, or Infinity). */
  maxBatch: number;
  /**
   * When a batch starts once a slot is free: "after-io" (the default) lets the event loop take
   * in the current round of I/O first, "now" starts it in the call itself.
   */
  start?: "after-io" | "now";
  /**
   * Waits for the batch's turn (a KeyedSerial's, say) before it is taken, so that it takes every
   * call that arrived until then; at most one batch waits for its turn at a time.
   */
  turn?: (task: () => Promise<void>) => Promise<void>;
  /** Called whenever no call waits and no batch is in flight. */
  onIdle?: () => void;
}

/**
 * Coalesces concurrent calls of `run` into batches, like a database's group commit: at most
 * `concurrency` batches run at once, and calls arriving while all of them are busy wait and leave
 * together (up to `maxBatch`) as soon as one finishes. By default a batch starts once the event
 * loop has taken in the current round of I/O (setImmediate), so requests that arrived together
 * leave together even where `run` never yields to I/O (PGlite runs its queries on this thread);
 * a call under light load thus waits one turn of the loop, and under heavy load one statement
 * serves many calls.
 *
 * `run` answers one output per input, in input order. When it throws, every call of that batch
 * rejects with the same error.
 */
export function createBatcher<In, Out>(
  run: (inputs: In[]) => Promise<Out[]>,
  { concurrency, maxBatch, start = "after-io", turn, onIdle }: BatcherOptions,
): (input: In) => Promise<Out> {
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError("concurrency must be a positive integer");
  }
  if (maxBatch !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(maxBatch) || maxBatch < 1)) {
    throw new RangeError("maxBatch must be a positive integer");
  }
  interface Waiting {
    input: In;
    resolve(output: Out): void;
    reject(error: unknown): void;
  }
  let waiting: Waiting[] = [];
  /** Batches started (running, or waiting for their turn). */
  let inFlight = 0;
  let awaitingTurn = false;
  let scheduled = false;

  const settle = async (batch: Waiting[]) => {
    try {
      const outputs = await run(batch.map((call) => call.input));
      if (outputs.length !== batch.length) {
        throw new Error(`batch answered ${outputs.length} results for ${batch.length} calls`);
      }
      for (const [i, call] of batch.entries()) call.resolve(outputs[i] as Out);
    } catch (error) {
      for (const call of batch) call.reject(error);
    }
  };

  const take = async () => {
    awaitingTurn = false;
    const batch = waiting.length <= maxBatch ? waiting : waiting.slice(0, maxBatch);
    waiting = batch === waiting ? [] : waiting.slice(maxBatch);
    if (batch.length > 0) await settle(batch);
  };

  const begin = () => {
    while (inFlight < concurrency && waiting.length > 0 && !awaitingTurn) {
      inFlight++;
      let ended: Promise<void>;
      if (turn) {
        awaitingTurn = true;
        ended = turn(take);
      } else {
        ended = take();
      }
      void ended.finally(() => {
        inFlight--;
        begin();
        if (inFlight === 0 && waiting.length === 0) onIdle?.();
      });
    }
  };

  const beginAfterIo = () => {
    scheduled = false;
    begin();
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (start === "now") {
        begin();
      } else if (!scheduled && inFlight < concurrency) {
        scheduled = true;
        setImmediate(beginAfterIo);
      }
    });
}
