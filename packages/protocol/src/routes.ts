import * as v from "valibot";
import { ERROR_STATUS, type ErrorCode } from "./errors.js";
import {
  AccountPath,
  AccountVersionPath,
  AddressPath,
  BridgePollQuery,
  BridgePresenceQuery,
  BridgeStreamHeaders,
  BridgeStreamQuery,
  BridgeWsQuery,
  ConsistencyQuery,
  InboxBlobPath,
  LeavesQuery,
  ObserverEventsQuery,
  StreamIdPath,
  TransferChunkHeaders,
  TransferControlHeaders,
  TransferStateHeaders,
  TreeSizePath,
} from "./route-params.js";
import { PollResponse } from "./schemas/bridge.js";
import { DeviceListJson } from "./schemas/devices.js";
import {
  DepositBatchBody,
  DepositBatchResponse,
  DepositBody,
  DepositResponse,
  FetchBody,
  FetchResponse,
  InboxAckResponse,
  InboxRegisterBody,
  InboxRegisterResponse,
  InboxUnregisterResponse,
  LatestDeviceListVersions,
  SignedPayloadBody,
} from "./schemas/inbox.js";
import {
  KeysCountResponse,
  KeysDeleteBody,
  KeysDeleteResponse,
  KeysRegisterBody,
  KeysRegisterResponse,
  KeysReplenishBody,
  KeysReplenishResponse,
  PreKeyBundle,
} from "./schemas/keys.js";
import {
  ConsistencyResponse,
  KtProofJson,
  LeavesResponse,
  LogIdResponse,
  SthResponse,
  VrfIndexResponse,
} from "./schemas/kt.js";
import {
  HealthResponse,
  LivenessResponse,
  ObserverSnapshot,
  ReadyResponse,
} from "./schemas/operations.js";
import {
  PushSubscribeBody,
  PushSubscribeResponse,
  PushUnsubscribeBody,
  PushUnsubscribeResponse,
  PushVapidResponse,
} from "./schemas/push.js";
import {
  ChunkAck,
  ControlResponse,
  ResumeState,
  TransferHealthResponse,
} from "./transfer/schemas.js";

/** How a route authenticates its caller. */
export type RouteAuth =
  | "anonymous"
  | "signed-body"
  | "signed-list"
  | "signed-query"
  | "transfer-headers"
  | "observer-token";

/** The part of the interface a route belongs to (its OpenAPI tag). */
export type RouteTag =
  | "operations"
  | "observer"
  | "keys"
  | "devices"
  | "kt"
  | "inbox"
  | "bridge"
  | "push"
  | "transfer";

/**
 * What a route answers besides JSON: a text body of that media type, an event stream, a
 * WebSocket upgrade (101) or a redirect (301).
 */
export type RouteAnswer =
  | "text/plain"
  | "text/html"
  | "application/yaml"
  | "text/event-stream"
  | "websocket"
  | "redirect";

export interface RouteContract {
  method: "GET" | "POST" | "DELETE";
  /** The path template, `{param}` per parameter (as OpenAPI writes it). */
  path: string;
  tag: RouteTag;
  /** One line: what the route does. */
  summary: string;
  auth: RouteAuth;
  /** Which server answers it: the prekey server, or a transfer receiver (a peer). */
  server?: "receiver";
  /** Path parameters, one member per `{param}` of `path`. */
  params?: v.ObjectSchema<v.ObjectEntries, undefined>;
  query?: v.ObjectSchema<v.ObjectEntries, undefined>;
  /** Request headers the route reads. */
  headers?: v.ObjectSchema<v.ObjectEntries, undefined>;
  /** The JSON request body; absent for routes without one. */
  body?: v.GenericSchema;
  /** A binary request body (application/octet-stream) instead of JSON. */
  binaryBody?: true;
  /** The JSON body of the 200 answer. */
  response?: v.GenericSchema;
  /** A 200 that is not JSON (absent when `response` is given). */
  answer?: RouteAnswer;
  /** A 503 with the 200's schema: the server is up but not healthy or ready. */
  unhealthy?: true;
  /** Every error code the route can answer; each is sent with its status of ERROR_STATUS. */
  errors: readonly ErrorCode[];
  /** Members an error body carries besides name, code and message, by code. */
  errorMembers?: Partial<Record<ErrorCode, v.ObjectEntries>>;
  /**
   * Left out of the OpenAPI document: `/svc-observer/` (the dashboard page; the document names
   * `/svc-observer`, which redirects to it, since a path must not end in `/`).
   */
  undocumented?: true;
}

const BundleResponse = v.object({ ...PreKeyBundle.entries, ktProof: v.optional(KtProofJson) });
const DeviceListResponse = v.object({
  ...DeviceListJson.entries,
  ktProof: v.optional(KtProofJson),
});

/** Failures any route can answer: a crash, or the database out of reach. */
const SERVER = ["SVC_INTERNAL", "SVC_UNAVAILABLE"] as const;
const KT = ["SVC_FEATURE_DISABLED", ...SERVER] as const;
const KEYS_SIGNED = [
  "SVC_BAD_REQUEST",
  "SVC_INVALID_ADDRESS",
  "SVC_INVALID_KEY",
  "SVC_BAD_SIGNATURE",
  "SVC_STALE_SIGNATURE",
  "SVC_IDENTITY_MISMATCH",
  "SVC_TOO_LARGE",
  ...SERVER,
] as const;
const INBOX_SIGNED = [
  "SVC_BAD_REQUEST",
  "SVC_INVALID_ADDRESS",
  "SVC_INVALID_KEY",
  "SVC_BAD_SIGNATURE",
  "SVC_WRONG_KEY",
  "SVC_STALE_SIGNATURE",
  "SVC_TOO_LARGE",
  "SVC_FEATURE_DISABLED",
  ...SERVER,
] as const;
/** Push is off (SVC_PUSH=off) or the inbox is: 404 SVC_FEATURE_DISABLED. */
const PUSH = ["SVC_FEATURE_DISABLED", "SVC_RATE_LIMITED", ...SERVER] as const;
/** Signed by the address's bound inbox key, like the inbox's own signed routes. */
const PUSH_SIGNED = [
  "SVC_BAD_REQUEST",
  "SVC_INVALID_ADDRESS",
  "SVC_BAD_SIGNATURE",
  "SVC_WRONG_KEY",
  "SVC_STALE_SIGNATURE",
  "SVC_TOO_LARGE",
  ...PUSH,
] as const;
const BRIDGE = [
  "SVC_BAD_REQUEST",
  "SVC_INVALID_ADDRESS",
  "SVC_BAD_SIGNATURE",
  "SVC_STALE_SIGNATURE",
  "SVC_WRONG_KEY",
  "SVC_FEATURE_DISABLED",
  ...SERVER,
] as const;
const OBSERVER = ["SVC_UNAUTHORIZED", "SVC_NOT_FOUND", ...SERVER] as const;
const TRANSFER_SIGNED = [
  "SVC_BAD_REQUEST",
  "SVC_INVALID_ADDRESS",
  "SVC_UNAUTHORIZED",
  "SVC_BAD_SIGNATURE",
  "SVC_STALE_SIGNATURE",
  "SVC_WRONG_KEY",
  "SVC_STREAM_NOT_FOUND",
  "SVC_INTERNAL",
] as const;

/** The lane's `lastSeqAcked` that a receiver's 409 to a chunk carries. */
const LAST_SEQ_ACKED = {
  lastSeqAcked: v.pipe(v.string(), v.regex(/^(0|[1-9][0-9]*)$/)),
};

/**
 * Every route of the prekey server and of a transfer receiver: what the servers register and
 * validate, what the client calls, and what the OpenAPI document is generated from.
 */
export const ROUTES = {
  health: {
    method: "GET",
    path: "/health",
    tag: "operations",
    summary: "Health of the server and its storage.",
    auth: "anonymous",
    response: HealthResponse,
    unhealthy: true,
    errors: [],
  },
  healthz: {
    method: "GET",
    path: "/healthz",
    tag: "operations",
    summary: "Liveness of the process.",
    auth: "anonymous",
    response: LivenessResponse,
    errors: ["SVC_INTERNAL"],
  },
  ready: {
    method: "GET",
    path: "/ready",
    tag: "operations",
    summary: "Readiness of every configured backend.",
    auth: "anonymous",
    response: ReadyResponse,
    unhealthy: true,
    errors: [],
  },
  metrics: {
    method: "GET",
    path: "/metrics",
    tag: "operations",
    summary: "Plain-text metrics exposition.",
    auth: "anonymous",
    answer: "text/plain",
    errors: ["SVC_INTERNAL"],
  },
  openApi: {
    method: "GET",
    path: "/openapi.yaml",
    tag: "operations",
    summary: "This interface description (OpenAPI 3.1).",
    auth: "anonymous",
    answer: "application/yaml",
    errors: ["SVC_INTERNAL"],
  },
  observerRedirect: {
    method: "GET",
    path: "/svc-observer",
    tag: "observer",
    summary: "The observer dashboard: redirects to the page at /svc-observer/.",
    auth: "anonymous",
    answer: "redirect",
    errors: ["SVC_NOT_FOUND", "SVC_INTERNAL"],
  },
  observerPage: {
    method: "GET",
    path: "/svc-observer/",
    tag: "observer",
    summary: "The observer dashboard page.",
    auth: "anonymous",
    answer: "text/html",
    errors: ["SVC_NOT_FOUND", "SVC_INTERNAL"],
    undocumented: true,
  },
  observerState: {
    method: "GET",
    path: "/svc-observer/api/state",
    tag: "observer",
    summary: "Observer snapshot.",
    auth: "observer-token",
    response: ObserverSnapshot,
    errors: OBSERVER,
  },
  observerEvents: {
    method: "GET",
    path: "/svc-observer/api/events",
    tag: "observer",
    summary: "Observer snapshots and server events as Server-Sent Events.",
    auth: "observer-token",
    query: ObserverEventsQuery,
    answer: "text/event-stream",
    errors: OBSERVER,
  },
  keysRegister: {
    method: "POST",
    path: "/v1/keys/register",
    tag: "keys",
    summary: "Register or update an identity, its signed prekey and one-time prekeys.",
    auth: "signed-body",
    body: KeysRegisterBody,
    response: KeysRegisterResponse,
    errors: [
      ...KEYS_SIGNED,
      "SVC_INVALID_SIGNED_PREKEY",
      "SVC_INVALID_KEM_PREKEY",
      "SVC_RATE_LIMITED",
    ],
  },
  keysBundle: {
    method: "GET",
    path: "/v1/keys/bundle/{address}",
    tag: "keys",
    summary: "Fetch a prekey bundle (consumes the oldest one-time prekey, if any).",
    auth: "anonymous",
    params: AddressPath,
    response: BundleResponse,
    errors: ["SVC_INVALID_ADDRESS", "SVC_NOT_REGISTERED", "SVC_RATE_LIMITED", ...SERVER],
    errorMembers: { SVC_NOT_REGISTERED: { ktProof: v.optional(KtProofJson) } },
  },
  keysCount: {
    method: "GET",
    path: "/v1/keys/count/{address}",
    tag: "keys",
    summary:
      "Number of queued one-time prekeys, X25519 and ML-KEM (0 for an unregistered address).",
    auth: "anonymous",
    params: AddressPath,
    response: KeysCountResponse,
    errors: ["SVC_INVALID_ADDRESS", ...SERVER],
  },
  keysReplenish: {
    method: "POST",
    path: "/v1/keys/replenish",
    tag: "keys",
    summary: "Append one-time prekeys (X25519, ML-KEM) or rotate the last-resort KEM key.",
    auth: "signed-body",
    body: KeysReplenishBody,
    response: KeysReplenishResponse,
    errors: [...KEYS_SIGNED, "SVC_INVALID_KEM_PREKEY", "SVC_NOT_REGISTERED", "SVC_RATE_LIMITED"],
  },
  keysDelete: {
    method: "DELETE",
    path: "/v1/keys/{address}",
    tag: "keys",
    summary: "Delete an identity, its signed prekey and its one-time prekeys.",
    auth: "signed-body",
    params: AddressPath,
    body: KeysDeleteBody,
    response: KeysDeleteResponse,
    errors: [...KEYS_SIGNED, "SVC_NOT_REGISTERED"],
  },
  ktLogId: {
    method: "GET",
    path: "/v1/kt/log_id",
    tag: "kt",
    summary: "Log identifier, operator public key, VRF key and checkpoint origin.",
    auth: "anonymous",
    response: LogIdResponse,
    errors: KT,
  },
  ktSth: {
    method: "GET",
    path: "/v1/kt/sth",
    tag: "kt",
    summary: "Latest signed tree head.",
    auth: "anonymous",
    response: SthResponse,
    errors: KT,
  },
  ktSthAt: {
    method: "GET",
    path: "/v1/kt/sth/{treeSize}",
    tag: "kt",
    summary: "Signed tree head at a given tree size (one exists for every size up to the latest).",
    auth: "anonymous",
    params: TreeSizePath,
    response: SthResponse,
    errors: ["SVC_BAD_REQUEST", "SVC_STH_NOT_FOUND", ...KT],
  },
  ktConsistency: {
    method: "GET",
    path: "/v1/kt/consistency",
    tag: "kt",
    summary: "RFC 6962 consistency proof between two tree sizes.",
    auth: "anonymous",
    query: ConsistencyQuery,
    response: ConsistencyResponse,
    errors: ["SVC_BAD_REQUEST", ...KT],
  },
  ktLeaves: {
    method: "GET",
    path: "/v1/kt/leaves",
    tag: "kt",
    summary: "Encoded log leaves, in log order, for monitors that replay the log.",
    auth: "anonymous",
    query: LeavesQuery,
    response: LeavesResponse,
    errors: ["SVC_BAD_REQUEST", ...KT],
  },
  ktCheckpoint: {
    method: "GET",
    path: "/v1/kt/checkpoint",
    tag: "kt",
    summary: "The latest tree head as a C2SP checkpoint, with its witness cosignatures.",
    auth: "anonymous",
    answer: "text/plain",
    errors: KT,
  },
  devicesGet: {
    method: "GET",
    path: "/v1/devices/{account}",
    tag: "devices",
    summary: "The latest version of an account's device list, with its key-transparency proof.",
    auth: "anonymous",
    params: AccountPath,
    response: DeviceListResponse,
    errors: ["SVC_INVALID_ADDRESS", "SVC_NO_DEVICE_LIST", "SVC_RATE_LIMITED", ...SERVER],
    errorMembers: { SVC_NO_DEVICE_LIST: { ktProof: v.optional(KtProofJson) } },
  },
  devicesVersion: {
    method: "GET",
    path: "/v1/devices/{account}/versions/{version}",
    tag: "devices",
    summary:
      "One earlier version of an account's device list (to check the chain up to the latest).",
    auth: "anonymous",
    params: AccountVersionPath,
    response: DeviceListJson,
    errors: [
      "SVC_BAD_REQUEST",
      "SVC_INVALID_ADDRESS",
      "SVC_NO_DEVICE_LIST",
      "SVC_RATE_LIMITED",
      ...SERVER,
    ],
  },
  devicesWrite: {
    method: "POST",
    path: "/v1/devices/{account}",
    tag: "devices",
    summary: "Store the next version of an account's device list, signed by a device of the last.",
    auth: "signed-list",
    params: AccountPath,
    body: DeviceListJson,
    response: v.object({ ok: v.boolean(), version: v.number() }),
    errors: [
      "SVC_BAD_REQUEST",
      "SVC_INVALID_ADDRESS",
      "SVC_INVALID_DEVICE_LIST",
      "SVC_DEVICE_LIST_CONFLICT",
      "SVC_TOO_LARGE",
      "SVC_RATE_LIMITED",
      ...SERVER,
    ],
    errorMembers: { SVC_DEVICE_LIST_CONFLICT: { currentVersion: v.number() } },
  },
  pushVapid: {
    method: "GET",
    path: "/v1/push/vapid",
    tag: "push",
    summary: "The server's VAPID public key, for a browser's or distributor's push subscription.",
    auth: "anonymous",
    response: PushVapidResponse,
    errors: PUSH,
  },
  pushSubscribe: {
    method: "POST",
    path: "/v1/push/subscriptions",
    tag: "push",
    summary: "Add (or renew) a Web Push subscription that wakes an address when blobs arrive.",
    auth: "signed-body",
    body: PushSubscribeBody,
    response: PushSubscribeResponse,
    errors: [
      ...PUSH_SIGNED,
      "SVC_INVALID_PUSH_SUBSCRIPTION",
      "SVC_PUSH_ENDPOINT_REFUSED",
      "SVC_TOO_MANY_SUBSCRIPTIONS",
    ],
  },
  pushUnsubscribe: {
    method: "DELETE",
    path: "/v1/push/subscriptions",
    tag: "push",
    summary: "Remove an address's Web Push subscription by its endpoint.",
    auth: "signed-body",
    body: PushUnsubscribeBody,
    response: PushUnsubscribeResponse,
    errors: PUSH_SIGNED,
  },
  ktVrf: {
    method: "GET",
    path: "/v1/kt/vrf/{address}",
    tag: "kt",
    summary: "An address's index-map key (its VRF index) and its VRF proof.",
    auth: "anonymous",
    params: AddressPath,
    response: VrfIndexResponse,
    errors: ["SVC_INVALID_ADDRESS", "SVC_RATE_LIMITED", ...KT],
  },
  inboxRegister: {
    method: "POST",
    path: "/v1/inbox/register",
    tag: "inbox",
    summary: "Bind an address to an Ed25519 signing key (first registration wins).",
    auth: "signed-body",
    body: InboxRegisterBody,
    response: InboxRegisterResponse,
    errors: INBOX_SIGNED,
  },
  inboxUnregister: {
    method: "DELETE",
    path: "/v1/inbox/register/{address}",
    tag: "inbox",
    summary: "Remove the registration; queued blobs of the address are dropped.",
    auth: "signed-body",
    params: AddressPath,
    body: SignedPayloadBody,
    response: InboxUnregisterResponse,
    errors: INBOX_SIGNED,
  },
  inboxDeposit: {
    method: "POST",
    path: "/v1/inbox/{address}",
    tag: "inbox",
    summary: "Deposit a ciphertext blob for a registered recipient.",
    auth: "signed-body",
    params: AddressPath,
    body: DepositBody,
    response: DepositResponse,
    errors: [...INBOX_SIGNED, "SVC_NOT_REGISTERED", "SVC_MSGID_MISMATCH", "SVC_QUOTA_EXCEEDED"],
  },
  inboxDepositBatch: {
    method: "POST",
    path: "/v1/deposits",
    tag: "inbox",
    summary:
      "Deposit several blobs at once, each signed as for POST /v1/inbox/{address}; one outcome each.",
    auth: "signed-body",
    body: DepositBatchBody,
    response: DepositBatchResponse,
    errors: [
      "SVC_BAD_REQUEST",
      "SVC_INVALID_ADDRESS",
      "SVC_DEVICE_LIST_CHANGED",
      "SVC_TOO_LARGE",
      "SVC_FEATURE_DISABLED",
      ...SERVER,
    ],
    errorMembers: { SVC_DEVICE_LIST_CHANGED: { deviceLists: LatestDeviceListVersions } },
  },
  inboxFetch: {
    method: "POST",
    path: "/v1/inbox/{address}/fetch",
    tag: "inbox",
    summary: "Fetch unexpired blobs newer than the cursor, oldest first.",
    auth: "signed-body",
    params: AddressPath,
    body: FetchBody,
    response: FetchResponse,
    errors: INBOX_SIGNED,
  },
  inboxAck: {
    method: "DELETE",
    path: "/v1/inbox/{address}/{msgId}",
    tag: "inbox",
    summary: "Acknowledge (remove) a blob.",
    auth: "signed-body",
    params: InboxBlobPath,
    body: SignedPayloadBody,
    response: InboxAckResponse,
    errors: [...INBOX_SIGNED, "SVC_BLOB_NOT_FOUND"],
  },
  bridgeStream: {
    method: "GET",
    path: "/v1/bridge/stream",
    tag: "bridge",
    summary: "Server-Sent Events delivery of queued and live envelopes.",
    auth: "signed-query",
    query: BridgeStreamQuery,
    headers: BridgeStreamHeaders,
    answer: "text/event-stream",
    errors: BRIDGE,
  },
  bridgePoll: {
    method: "GET",
    path: "/v1/bridge/poll",
    tag: "bridge",
    summary: "Long-poll for envelopes.",
    auth: "signed-query",
    query: BridgePollQuery,
    response: PollResponse,
    errors: BRIDGE,
  },
  bridgeWs: {
    method: "GET",
    path: "/v1/bridge/ws",
    tag: "bridge",
    summary: "WebSocket delivery of envelopes.",
    auth: "signed-query",
    query: BridgeWsQuery,
    answer: "websocket",
    errors: BRIDGE,
  },
  bridgePresence: {
    method: "GET",
    path: "/v1/bridge/presence",
    tag: "bridge",
    summary: "Presence feed of watched addresses (Server-Sent Events).",
    auth: "signed-query",
    query: BridgePresenceQuery,
    answer: "text/event-stream",
    errors: [...BRIDGE, "SVC_TOO_MANY_WATCHED"],
  },
  transferHealth: {
    method: "GET",
    path: "/v1/transfer/health",
    tag: "transfer",
    summary: "Receiver liveness, with the identity it receives for.",
    auth: "anonymous",
    server: "receiver",
    response: TransferHealthResponse,
    errors: ["SVC_INTERNAL"],
  },
  transferChunk: {
    method: "POST",
    path: "/v1/transfer/{streamId}/chunk",
    tag: "transfer",
    summary: "Deliver one stream chunk.",
    auth: "transfer-headers",
    server: "receiver",
    params: StreamIdPath,
    headers: TransferChunkHeaders,
    binaryBody: true,
    response: ChunkAck,
    errors: [
      ...TRANSFER_SIGNED,
      "SVC_REPLAY",
      "SVC_OUT_OF_ORDER",
      "SVC_INVALID_TRANSITION",
      "SVC_TOO_LARGE",
    ],
    errorMembers: {
      SVC_REPLAY: LAST_SEQ_ACKED,
      SVC_OUT_OF_ORDER: LAST_SEQ_ACKED,
      SVC_INVALID_TRANSITION: LAST_SEQ_ACKED,
    },
  },
  transferState: {
    method: "GET",
    path: "/v1/transfer/{streamId}/state",
    tag: "transfer",
    summary: "Resume state of a stream.",
    auth: "transfer-headers",
    server: "receiver",
    params: StreamIdPath,
    headers: TransferStateHeaders,
    response: ResumeState,
    errors: TRANSFER_SIGNED,
  },
  transferControl: {
    method: "POST",
    path: "/v1/transfer/control",
    tag: "transfer",
    summary: "Deliver a control message in a 0x02 ratchet envelope.",
    auth: "anonymous",
    server: "receiver",
    headers: TransferControlHeaders,
    binaryBody: true,
    response: ControlResponse,
    errors: [
      "SVC_BAD_REQUEST",
      "SVC_INVALID_ADDRESS",
      "SVC_STREAM_NOT_FOUND",
      "SVC_INVALID_TRANSITION",
      "SVC_TOO_LARGE",
      "SVC_RATE_LIMITED",
      "SVC_TOO_MANY_STREAMS",
      "SVC_INSUFFICIENT_STORAGE",
      ...SERVER,
    ],
  },
} as const satisfies Record<string, RouteContract>;

export type RouteName = keyof typeof ROUTES;

/** The routes that answer a JSON body. */
export type JsonRouteName = {
  [N in RouteName]: (typeof ROUTES)[N] extends { response: v.GenericSchema } ? N : never;
}[RouteName];

/**
 * The status `route` answers `code` with: ERROR_STATUS's, except SVC_STALE_SIGNATURE on the inbox
 * routes (409, see staleSignature).
 */
export function errorStatus(route: RouteContract, code: ErrorCode): number {
  return code === "SVC_STALE_SIGNATURE" && route.tag === "inbox" ? 409 : ERROR_STATUS[code];
}

/** A path template with `:param` for each `{param}`: the pattern routers (Hono) match. */
export type RoutePattern<P extends string> = P extends `${infer Head}{${infer Name}}${infer Tail}`
  ? `${Head}:${Name}${RoutePattern<Tail>}`
  : P;

/** The router pattern of `route`'s path: `/v1/keys/bundle/{address}` is `/v1/keys/bundle/:address`. */
export function routePattern<P extends string>(route: { path: P }): RoutePattern<P> {
  return route.path.replace(/\{([^}]+)\}/g, ":$1") as RoutePattern<P>;
}
