import { MAX_UNSENT_BYTES } from "./push-bridge.js";
import type { EndReason, PresenceChange, PresenceSink } from "./types.js";

/**
 * One presence subscription. It reports only flips of what it last told its consumer, so a
 * change that raced with the snapshot query (or arrives twice after a resync) is never repeated.
 */
export class PresenceWatch {
  readonly #told = new Map<string, boolean>();
  #buffered: PresenceChange[] | undefined = [];
  #closed = false;

  constructor(
    readonly addresses: readonly string[],
    private readonly sink: PresenceSink,
    private readonly onEnd: (watch: PresenceWatch) => void,
  ) {}

  /** The first state of every watched address; changes that came in meanwhile follow. */
  open(online: ReadonlySet<string>, at: number): void {
    if (this.#closed) return;
    for (const address of this.addresses) {
      const state = online.has(address);
      this.#told.set(address, state);
      this.sink.snapshot({ address, online: state, at });
    }
    const buffered = this.#buffered ?? [];
    this.#buffered = undefined;
    for (const change of buffered) this.receive(change);
  }

  receive(change: PresenceChange): void {
    if (this.#closed) return;
    if (this.#buffered) {
      this.#buffered.push(change);
      return;
    }
    if (this.#told.get(change.address) === change.online) return;
    if (this.sink.unsentBytes() > MAX_UNSENT_BYTES) {
      this.end("behind");
      return;
    }
    this.#told.set(change.address, change.online);
    this.sink.change(change);
  }

  /** What the connection holds that its client has not taken yet. */
  unsentBytes(): number {
    return this.sink.unsentBytes();
  }

  get opened(): boolean {
    return this.#buffered === undefined;
  }

  detach(): void {
    this.#closed = true;
  }

  end(reason: EndReason): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onEnd(this);
    this.sink.end(reason);
  }
}
