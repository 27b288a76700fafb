import { BridgeEnvelope } from "@svc/protocol";
import * as v from "valibot";
import { ClientError } from "../errors.js";
import type { WebSocketConstructor } from "./websocket.js";

export type TransportName = "ws" | "sse" | "poll";

/** An open bridge. `ended` resolves when it drops or is closed, with the reason if it failed. */
export interface Connection {
  ended: Promise<unknown>;
}

export interface TransportContext {
  /** A freshly signed URL of the `ws` or `stream` bridge from `since`. */
  url(kind: "ws" | "stream", since: number): string;
  /** One signed long-poll from `since`. */
  poll(since: number, timeoutMs: number): Promise<BridgeEnvelope[]>;
  /** The receivedAt to resume after. */
  since(): number;
  /** Queues envelopes for processing in arrival order; resolves once they are processed. */
  deliver(envelopes: BridgeEnvelope[]): Promise<void>;
  fetch: typeof fetch;
  WebSocket: WebSocketConstructor | undefined;
  /** Aborted when the subscription closes. */
  signal: AbortSignal;
}

/** Opens a bridge: resolves once it is connected, rejects when it cannot connect. */
export type Transport = (context: TransportContext) => Promise<Connection>;

/** The JSON of an SSE `envelope` event or a WebSocket frame. */
export function parseEnvelope(text: string): BridgeEnvelope {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = v.safeParse(BridgeEnvelope, json);
  if (!parsed.success)
    throw new ClientError("BAD_RESPONSE", "a bridge sent an envelope that is not the schema's");
  return parsed.output;
}
