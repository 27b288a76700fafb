export interface BatcherOptions {
  /** Most batches running at once (each holds one pooled connection while it runs). */
  concurrency: number;
  /** Most calls in one batch. */
  maxBatch: number;
}

/**
 * Coalesces concurrent calls of `run` into batches, like a database's group commit: at most
 * `concurrency` batches run at once, and calls arriving while all of them are busy wait and leave
 * together (up to `maxBatch`) as soon as one finishes. A batch starts once the event loop has
 * taken in the current round of I/O (setImmediate), so requests that arrived together leave
 * together even where `run` never yields to I/O (PGlite runs its queries on this thread); a call
 * under light load thus waits one turn of the loop, and under heavy load one statement serves
 * many calls.
 *
 * `run` answers one output per input, in input order. When it throws, every call of that batch
 * rejects with the same error.
 */
export function createBatcher<In, Out>(
  run: (inputs: In[]) => Promise<Out[]>,
  { concurrency, maxBatch }: BatcherOptions,
): (input: In) => Promise<Out> {
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError("concurrency must be a positive integer");
  }
  if (!Number.isSafeInteger(maxBatch) || maxBatch < 1) {
    throw new RangeError("maxBatch must be a positive integer");
  }
  interface Waiting {
    input: In;
    resolve(output: Out): void;
    reject(error: unknown): void;
  }
  let waiting: Waiting[] = [];
  let running = 0;
  let scheduled = false;

  const start = () => {
    while (running < concurrency && waiting.length > 0) {
      const batch = waiting.length <= maxBatch ? waiting : waiting.slice(0, maxBatch);
      waiting = batch === waiting ? [] : waiting.slice(maxBatch);
      running++;
      void settle(batch).finally(() => {
        running--;
        start();
      });
    }
  };

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

  const startAfterIo = () => {
    scheduled = false;
    start();
  };

  return (input) =>
    new Promise<Out>((resolve, reject) => {
      waiting.push({ input, resolve, reject });
      if (!scheduled && running < concurrency) {
        scheduled = true;
        setImmediate(startAfterIo);
      }
    });
}
