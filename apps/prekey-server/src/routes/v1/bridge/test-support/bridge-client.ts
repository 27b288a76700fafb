import {
  type BridgeKind,
  bridgeQueryMessage,
  ed25519Sign,
  encodeBase64,
  presenceQueryMessage,
} from "@svc/canonical";
import type { RunningServer } from "../../../../server.js";
import { envelope, InboxClient, type Party, party } from "../../inbox/test-support/client.js";

export { envelope, type Party, party };

export interface QueryOptions {
  since?: number;
  signedAt?: number;
  /** Extra or replacing query parameters, sent as given (not signed). */
  extra?: Record<string, string>;
}

/** A signed bridge URL (D7), the way a client builds one. */
export function bridgeUrl(
  base: string,
  kind: BridgeKind,
  owner: Party,
  address: string,
  options: QueryOptions = {},
): string {
  const signedAt = options.signedAt ?? Date.now();
  const message = bridgeQueryMessage({ address, kind, since: options.since, signedAt });
  const params = new URLSearchParams({ address, kind });
  if (options.since !== undefined) params.set("since", String(options.since));
  params.set("signedAt", String(signedAt));
  params.set("signature", encodeBase64(ed25519Sign(message, owner.seed)));
  for (const [name, value] of Object.entries(options.extra ?? {})) params.set(name, value);
  return `${base}/v1/bridge/${kind}?${params}`;
}

/** A signed presence URL: `watched` signed sorted, sent in the given order. */
export function presenceUrl(
  base: string,
  owner: Party,
  address: string,
  watched: string[],
  options: QueryOptions = {},
): string {
  const signedAt = options.signedAt ?? Date.now();
  const message = presenceQueryMessage({ address, watched, signedAt });
  const params = new URLSearchParams({
    address,
    kind: "presence",
    watched: watched.join(","),
    signedAt: String(signedAt),
    signature: encodeBase64(ed25519Sign(message, owner.seed)),
  });
  for (const [name, value] of Object.entries(options.extra ?? {})) params.set(name, value);
  return `${base}/v1/bridge/presence?${params}`;
}

/** Inbox requests against a running server, signed with the real clock. */
export function inboxClient(server: RunningServer): InboxClient {
  return new InboxClient((path, init) => fetch(`${server.url}${path}`, init), Date.now);
}

export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

/** Reads an event stream incrementally: events, and comment lines (e.g. `: ping`). */
export class SseReader {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  #buffer = "";
  #closed = false;
  readonly done: Promise<void>;

  constructor(readonly response: Response) {
    const body = response.body;
    if (!body) throw new Error("no body");
    this.done = this.#read(body.pipeThrough(new TextDecoderStream()).getReader());
  }

  get closed(): boolean {
    return this.#closed;
  }

  async #read(reader: ReadableStreamDefaultReader<string>): Promise<void> {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.#buffer += value;
        let end = this.#buffer.indexOf("\n\n");
        while (end !== -1) {
          this.#parse(this.#buffer.slice(0, end));
          this.#buffer = this.#buffer.slice(end + 2);
          end = this.#buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted by the test
    } finally {
      this.#closed = true;
    }
  }

  #parse(block: string): void {
    const event: SseEvent = { event: "message", data: "" };
    let isEvent = false;
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) {
        this.comments.push(line);
        continue;
      }
      const colon = line.indexOf(": ");
      const [field, value] =
        colon === -1 ? [line, ""] : [line.slice(0, colon), line.slice(colon + 2)];
      isEvent = true;
      if (field === "event") event.event = value;
      else if (field === "id") event.id = value;
      else if (field === "data") event.data = value;
    }
    if (isEvent) this.events.push(event);
  }

  /** Parsed `data:` of every event named `name`. */
  data<T = Record<string, unknown>>(name: string): T[] {
    return this.events.filter((e) => e.event === name).map((e) => JSON.parse(e.data) as T);
  }
}

/** Live connections of one transport, from the server's own gauge. */
export async function liveBridges(server: RunningServer, transport: string): Promise<number> {
  const metric = await server.svc.services.metrics.bridgesLive.get();
  return metric.values.find((v) => v.labels.transport === transport)?.value ?? 0;
}

/** Registers `address` to `owner` and returns a depositor of numbered envelopes. */
export async function registeredInbox(server: RunningServer, address: string, owner: Party) {
  const client = inboxClient(server);
  const res = await client.register(address, owner);
  if (res.status !== 200) throw new Error(`register answered ${res.status}`);
  const sender = party("bridge-sender");
  return async (n: number) => {
    const deposited = await client.deposit(address, sender, envelope(n));
    if (deposited.status !== 200) throw new Error(`deposit answered ${deposited.status}`);
    return encodeBase64(envelope(n));
  };
}
