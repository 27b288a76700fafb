/**
 * Chunk bodies for reuse. A new 4 MiB buffer per chunk left garbage that the collector reached
 * late, and freed memory that malloc kept: the receiver's RSS grew past 250 MiB at 4 lanes. A
 * buffer is given back once its request has ended; at most `maxIdleBytes` wait idle.
 */
export class BodyPool {
  readonly #idle = new Map<number, Buffer[]>();
  readonly #made = new WeakSet<Buffer>();
  readonly #maxIdleBytes: number;
  #idleBytes = 0;

  constructor(maxIdleBytes: number) {
    this.#maxIdleBytes = maxIdleBytes;
  }

  /** A buffer of exactly `length` bytes, its content undefined. */
  take(length: number): Buffer {
    const reused = this.#idle.get(length)?.pop();
    if (reused !== undefined) {
      this.#idleBytes -= length;
      return reused;
    }
    const made = Buffer.allocUnsafeSlow(length);
    this.#made.add(made);
    return made;
  }

  /** Takes back a buffer of take()'s that nothing uses any more; others are left alone. */
  give(buffer: Uint8Array | undefined): void {
    if (!(buffer instanceof Buffer) || !this.#made.has(buffer)) return;
    if (this.#idleBytes + buffer.length > this.#maxIdleBytes) return;
    const idle = this.#idle.get(buffer.length) ?? [];
    if (idle.includes(buffer)) return;
    idle.push(buffer);
    this.#idle.set(buffer.length, idle);
    this.#idleBytes += buffer.length;
  }
}
