import { bridgeUrl, type Party, presenceUrl, type SseEvent, SseReader } from "@svc/test-client";
import WebSocket from "ws";

/** An envelope as a bridge delivers it. */
export interface Delivered {
  msgId: string;
  receivedAt: number;
  /** performance.now() when it arrived. */
  at: number;
}

/** What every reconnecting client here exposes. */
export interface BridgeClient {
  /** Connections opened so far (1 until the first reconnect). */
  readonly connects: number;
  /** The base URL of the server the client is connected to now, if any. */
  readonly connectedTo: string | undefined;
  close(): void;
}

const RETRY_MS = 100;

/**
 * A client that keeps one bridge open, as a messenger would: when the connection ends it opens
 * another, to the next base URL in turn (a load balancer's choice), resuming after the last
 * envelope it got, until closed.
 */
abstract class Reconnecting implements BridgeClient {
  connects = 0;
  connectedTo: string | undefined;
  #closed = false;
  #turn = 0;
  #stopCurrent: (() => void) | undefined;

  constructor(protected readonly bases: readonly string[]) {}

  protected run(): void {
    void (async () => {
      while (!this.#closed) {
        const base = this.bases[this.#turn % this.bases.length] as string;
        try {
          await this.connect(base, (stop) => {
            this.#stopCurrent = stop;
          });
        } catch {
          // refused or reset: try the next base
        }
        this.connectedTo = undefined;
        this.#turn++;
        if (!this.#closed) await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    })();
  }

  /** Opens one connection to `base`; resolves when it has ended. */
  protected abstract connect(base: string, onOpen: (stop: () => void) => void): Promise<void>;

  /** Reads an SSE answer until it ends, handing each event to `take` within 5 ms of arriving. */
  protected async follow(res: Response, base: string, take: (event: SseEvent) => void) {
    if (res.status !== 200) {
      await res.body?.cancel();
      return;
    }
    this.connects++;
    this.connectedTo = base;
    const reader = new SseReader(res);
    let seen = 0;
    const collect = () => {
      for (const event of reader.events.slice(seen)) take(event);
      seen = reader.events.length;
    };
    const collecting = setInterval(collect, 5);
    await reader.done;
    clearInterval(collecting);
    collect();
  }

  close(): void {
    this.#closed = true;
    this.#stopCurrent?.();
  }
}

/** A reconnecting SSE bridge (`Last-Event-ID` on each reconnect). */
export class SseBridge extends Reconnecting {
  readonly delivered: Delivered[] = [];

  constructor(
    bases: readonly string[],
    private readonly owner: Party,
    private readonly address: string,
  ) {
    super(bases);
    this.run();
  }

  protected async connect(base: string, onOpen: (stop: () => void) => void): Promise<void> {
    const controller = new AbortController();
    onOpen(() => controller.abort());
    const last = this.delivered.at(-1)?.receivedAt;
    const res = await fetch(bridgeUrl(base, "stream", this.owner, this.address), {
      headers: last === undefined ? {} : { "Last-Event-ID": String(last) },
      signal: controller.signal,
    });
    await this.follow(res, base, (event) => {
      if (event.event !== "envelope") return;
      const { msgId, receivedAt } = JSON.parse(event.data) as Delivered;
      this.delivered.push({ msgId, receivedAt, at: performance.now() });
    });
  }
}

/** A reconnecting WebSocket bridge (`since` = the last receivedAt on each reconnect). */
export class WsBridge extends Reconnecting {
  readonly delivered: Delivered[] = [];
  /** Close codes of the connections that ended (1006: no close frame). */
  readonly closeCodes: number[] = [];

  constructor(
    bases: readonly string[],
    private readonly owner: Party,
    private readonly address: string,
  ) {
    super(bases);
    this.run();
  }

  protected connect(base: string, onOpen: (stop: () => void) => void): Promise<void> {
    const since = this.delivered.at(-1)?.receivedAt;
    const url = bridgeUrl(base, "ws", this.owner, this.address, { since }).replace(/^http/, "ws");
    const socket = new WebSocket(url);
    onOpen(() => socket.terminate());
    socket.on("open", () => {
      this.connects++;
      this.connectedTo = base;
    });
    socket.on("message", (data) => {
      const { msgId, receivedAt } = JSON.parse(String(data)) as Delivered;
      this.delivered.push({ msgId, receivedAt, at: performance.now() });
    });
    socket.on("error", () => {});
    return new Promise((resolve) =>
      socket.once("close", (code) => {
        this.closeCodes.push(code);
        resolve();
      }),
    );
  }
}

/** A presence change as a feed reports it. */
export interface PresenceReport {
  address: string;
  online: boolean;
  /** performance.now() when it arrived. */
  at: number;
}

/**
 * A reconnecting presence feed: after each (re)connect its snapshot replaces what it knew, and
 * its changes update it; `online` is what the watcher believes now.
 */
export class PresenceFeed extends Reconnecting {
  readonly online = new Map<string, boolean>();
  readonly reports: PresenceReport[] = [];

  constructor(
    bases: readonly string[],
    private readonly owner: Party,
    private readonly address: string,
    private readonly watched: string[],
  ) {
    super(bases);
    this.run();
  }

  protected async connect(base: string, onOpen: (stop: () => void) => void): Promise<void> {
    const controller = new AbortController();
    onOpen(() => controller.abort());
    const res = await fetch(presenceUrl(base, this.owner, this.address, this.watched), {
      signal: controller.signal,
    });
    await this.follow(res, base, (event) => {
      const data = JSON.parse(event.data) as { address: string; online?: boolean };
      const online =
        event.event === "presence" ? data.online === true : event.event === "inbox.peer_connected";
      this.online.set(data.address, online);
      this.reports.push({ address: data.address, online, at: performance.now() });
    });
  }
}
