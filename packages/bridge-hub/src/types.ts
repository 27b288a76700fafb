import type { BridgeEnvelope } from "@svc/protocol";

/** Where envelopes come from: the inbox store. The database is the truth; wake-ups only hint. */
export interface EnvelopeSource {
  /** Unexpired, unacknowledged envelopes with `receivedAt > since`, oldest first. */
  envelopesSince(address: string, since: number, limit: number): Promise<BridgeEnvelope[]>;
}

/** A change of an address between no live push bridge anywhere and at least one. */
export interface PresenceChange {
  address: string;
  online: boolean;
  at: number;
}

/** Transports that count for presence. Long-poll does not. */
export type PushTransport = "sse" | "ws";

/** Why the hub ends a connection. */
export type EndReason = "behind" | "shutdown" | "error";

/** The connection side of a push bridge, written by the route that owns the socket. */
export interface EnvelopeSink {
  send(envelope: BridgeEnvelope): void;
  /** Bytes handed to the connection that the kernel has not taken yet. */
  unsentBytes(): number;
  /** Ends the connection; the hub has already forgotten the bridge. */
  end(reason: EndReason): void;
}

/** The connection side of a presence subscription. */
export interface PresenceSink {
  /** The state of one watched address when the subscription opens (or after a resync). */
  snapshot(state: PresenceChange): void;
  /** A later change of a watched address. */
  change(change: PresenceChange): void;
  unsentBytes(): number;
  end(reason: EndReason): void;
}
