import * as v from "valibot";
import { MSG_ID_PATTERN } from "./envelope.js";
import { LIMITS } from "./limits.js";
import { TRANSFER_HEADERS } from "./transfer/schemas.js";
import { STREAM_ID_PATTERN } from "./transfer/stream-id.js";

/**
 * Path, query and header parameters of the routes. The server reads them itself (an address is
 * normalized before it is checked, a number is parsed as a decimal), so these schemas describe
 * what a caller sends; each names the error a bad value is answered with.
 */

/** An address as sent: NFKC-normalized by the server, then checked (400 SVC_INVALID_ADDRESS). */
export const AddressParam = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(LIMITS.addressLength),
  v.description(
    "An address (NFKC-normalized, then matched against ^[a-zA-Z0-9][a-zA-Z0-9@:_.-]{0,255}$; " +
      "percent-encode as needed). An invalid one is 400 SVC_INVALID_ADDRESS.",
  ),
);

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** A non-negative integer as a decimal string (400 SVC_BAD_REQUEST otherwise). */
const decimal = (description: string) =>
  v.pipe(v.string(), v.maxLength(20), v.regex(DECIMAL), v.description(description));

export const AddressPath = v.object({ address: AddressParam });
export const TreeSizePath = v.object({ treeSize: decimal("A tree size (a safe integer).") });
/** An account: an address without its last `:<device>` part (any valid address can be one). */
export const AccountPath = v.object({ account: AddressParam });
export const AccountVersionPath = v.object({
  account: AddressParam,
  version: decimal("A version of the account's device list (a safe integer, from 1)."),
});
export const InboxBlobPath = v.object({
  address: AddressParam,
  msgId: v.pipe(
    v.string(),
    v.regex(MSG_ID_PATTERN),
    v.description("Lower-hex SHA-256 of the ciphertext bytes."),
  ),
});
export const StreamIdPath = v.object({
  streamId: v.pipe(
    v.string(),
    v.regex(STREAM_ID_PATTERN),
    v.description("16 random bytes in unpadded base64url."),
  ),
});

export const ConsistencyQuery = v.object({
  from: decimal("The older tree size."),
  to: v.optional(decimal("The newer tree size; the latest when absent.")),
});
export const LeavesQuery = v.object({
  start: decimal("The first leaf."),
  end: v.optional(decimal("One past the last leaf; the latest tree size when absent.")),
});

/** The signed query of a bridge (docs/protocol.md, D7). */
const bridgeQuery = <K extends string>(kind: K) => ({
  address: v.pipe(AddressParam, v.description("The recipient (the watcher for presence).")),
  kind: v.literal(kind),
  signedAt: decimal("Unix epoch milliseconds, within +-5 minutes of the server's clock."),
  signature: v.pipe(
    v.string(),
    v.length(88),
    v.description("Ed25519 signature over the query's canonical JSON, base64."),
  ),
});
const since = v.optional(
  decimal("receivedAt cursor: only envelopes received after it are delivered. Absent = 0."),
);

export const BridgeStreamQuery = v.object({ ...bridgeQuery("stream"), since });
export const BridgeWsQuery = v.object({ ...bridgeQuery("ws"), since });
export const BridgePollQuery = v.object({
  ...bridgeQuery("poll"),
  since,
  timeoutMs: v.optional(
    decimal(
      `Wait in milliseconds, default ${LIMITS.pollTimeoutMs.default}; ` +
        `values above ${LIMITS.pollTimeoutMs.max} are treated as ${LIMITS.pollTimeoutMs.max}.`,
    ),
  ),
});
export const BridgePresenceQuery = v.object({
  ...bridgeQuery("presence"),
  watched: v.pipe(
    v.string(),
    v.description(
      `Comma-separated watched addresses (may be empty, at most ${LIMITS.watchedAddresses}).`,
    ),
  ),
});
export const BridgeStreamHeaders = v.object({
  "Last-Event-ID": v.optional(
    decimal("receivedAt of the last event seen; replaces `since` when valid."),
  ),
});

export const ObserverEventsQuery = v.object({
  token: v.optional(
    v.pipe(
      v.string(),
      v.description("The observer token, for EventSource clients that cannot set headers."),
    ),
  ),
});

const senderAddress = v.pipe(AddressParam, v.description("The sending identity's address."));
/** Headers of transfer chunk and state requests (docs/protocol.md, transfer). */
export const TransferSignedHeaders = {
  [TRANSFER_HEADERS.senderAddress]: senderAddress,
  [TRANSFER_HEADERS.signedAt]: decimal(
    "Unix epoch ms, within +-5 minutes of the receiver's clock.",
  ),
  [TRANSFER_HEADERS.signature]: v.pipe(
    v.string(),
    v.length(88),
    v.description("Ed25519 signature, base64."),
  ),
};
export const TransferChunkHeaders = v.object({
  [TRANSFER_HEADERS.laneId]: decimal("u32 lane index."),
  [TRANSFER_HEADERS.seq]: decimal("The chunk's sequence number in its lane (u64)."),
  ...TransferSignedHeaders,
});
export const TransferStateHeaders = v.object(TransferSignedHeaders);
export const TransferControlHeaders = v.object({
  [TRANSFER_HEADERS.senderAddress]: senderAddress,
});
