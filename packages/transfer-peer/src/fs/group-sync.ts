/**
 * Group commit of a sync (an fdatasync): a caller whose write has completed waits for a sync
 * that began after it called, so its write is covered. While one sync runs, the callers that
 * come meanwhile share the next one, which begins when it ends: one sync serves every lane
 * that wrote in that time, instead of one each. A failed sync rejects each caller it was to
 * cover (their writes must not be acknowledged); the next caller starts another.
 */
export class GroupSync {
  readonly #sync: () => Promise<void>;
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  constructor(sync: () => Promise<void>) {
    this.#sync = sync;
  }

  /** Resolves once a sync that began after this call has completed. */
  sync(): Promise<void> {
    if (this.#queued) return this.#queued;
    const running = this.#running;
    if (!running) return this.#begin();
    const queued = running
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined;
        return this.#begin();
      });
    this.#queued = queued;
    return queued;
  }

  #begin(): Promise<void> {
    const running: Promise<void> = this.#sync().finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }
}
