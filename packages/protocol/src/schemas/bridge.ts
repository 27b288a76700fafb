import * as v from "valibot";
import { epochMs } from "./fields.js";

/** One delivered blob: an SSE `envelope` event's data, a WebSocket frame, or a poll item. */
export const BridgeEnvelope = v.object({
  from: v.string(),
  /** The ciphertext, base64. */
  bytes: v.string(),
  /** Strictly increasing per recipient; the bridge cursor. */
  receivedAt: epochMs("receivedAt"),
  msgId: v.optional(v.nullable(v.string())),
});

export const PollResponse = v.object({ envelopes: v.array(BridgeEnvelope) });

/** The `presence` event sent per watched address when a presence feed opens. */
export const PresenceSnapshot = v.object({
  address: v.string(),
  online: v.boolean(),
  at: epochMs("at"),
});

/** Data of the `inbox.peer_connected` and `inbox.peer_disconnected` events. */
export const PresenceEvent = v.object({ address: v.string(), at: epochMs("at") });

export type BridgeEnvelope = v.InferOutput<typeof BridgeEnvelope>;
