import * as v from "valibot";
import { PollResponse } from "./schemas/bridge.js";
import {
  DepositBody,
  DepositResponse,
  FetchBody,
  FetchResponse,
  InboxAckResponse,
  InboxRegisterBody,
  InboxRegisterResponse,
  InboxUnregisterResponse,
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
import { HealthResponse, LivenessResponse, ReadyResponse } from "./schemas/operations.js";
import {
  ChunkAck,
  ControlResponse,
  ResumeState,
  TransferHealthResponse,
} from "./transfer/schemas.js";

/** How a route authenticates its caller. */
export type RouteAuth = "anonymous" | "signed-body" | "signed-query" | "transfer-headers";

export interface RouteContract {
  method: "GET" | "POST" | "DELETE";
  /** The path template as the OpenAPI description writes it. */
  path: string;
  auth: RouteAuth;
  /** The JSON request body; absent for routes without one or with a binary body. */
  body?: v.GenericSchema;
  /** The JSON body of the success answer; absent for streams and binary answers. */
  response?: v.GenericSchema;
}

const BundleResponse = v.object({ ...PreKeyBundle.entries, ktProof: v.optional(KtProofJson) });

/**
 * Every JSON route of the interface: what the server validates and the client is typed by. The
 * observer's snapshot is left out: it is the operator dashboard's, and may gain members.
 */
export const ROUTES = {
  health: { method: "GET", path: "/health", auth: "anonymous", response: HealthResponse },
  healthz: { method: "GET", path: "/healthz", auth: "anonymous", response: LivenessResponse },
  ready: { method: "GET", path: "/ready", auth: "anonymous", response: ReadyResponse },
  keysRegister: {
    method: "POST",
    path: "/v1/keys/register",
    auth: "signed-body",
    body: KeysRegisterBody,
    response: KeysRegisterResponse,
  },
  keysBundle: {
    method: "GET",
    path: "/v1/keys/bundle/{address}",
    auth: "anonymous",
    response: BundleResponse,
  },
  keysCount: {
    method: "GET",
    path: "/v1/keys/count/{address}",
    auth: "anonymous",
    response: KeysCountResponse,
  },
  keysReplenish: {
    method: "POST",
    path: "/v1/keys/replenish",
    auth: "signed-body",
    body: KeysReplenishBody,
    response: KeysReplenishResponse,
  },
  keysDelete: {
    method: "DELETE",
    path: "/v1/keys/{address}",
    auth: "signed-body",
    body: KeysDeleteBody,
    response: KeysDeleteResponse,
  },
  ktLogId: { method: "GET", path: "/v1/kt/log_id", auth: "anonymous", response: LogIdResponse },
  ktSth: { method: "GET", path: "/v1/kt/sth", auth: "anonymous", response: SthResponse },
  ktSthAt: {
    method: "GET",
    path: "/v1/kt/sth/{treeSize}",
    auth: "anonymous",
    response: SthResponse,
  },
  ktConsistency: {
    method: "GET",
    path: "/v1/kt/consistency",
    auth: "anonymous",
    response: ConsistencyResponse,
  },
  ktLeaves: { method: "GET", path: "/v1/kt/leaves", auth: "anonymous", response: LeavesResponse },
  ktVrf: {
    method: "GET",
    path: "/v1/kt/vrf/{address}",
    auth: "anonymous",
    response: VrfIndexResponse,
  },
  inboxRegister: {
    method: "POST",
    path: "/v1/inbox/register",
    auth: "signed-body",
    body: InboxRegisterBody,
    response: InboxRegisterResponse,
  },
  inboxUnregister: {
    method: "DELETE",
    path: "/v1/inbox/register/{address}",
    auth: "signed-body",
    body: SignedPayloadBody,
    response: InboxUnregisterResponse,
  },
  inboxDeposit: {
    method: "POST",
    path: "/v1/inbox/{address}",
    auth: "signed-body",
    body: DepositBody,
    response: DepositResponse,
  },
  inboxFetch: {
    method: "POST",
    path: "/v1/inbox/{address}/fetch",
    auth: "signed-body",
    body: FetchBody,
    response: FetchResponse,
  },
  inboxAck: {
    method: "DELETE",
    path: "/v1/inbox/{address}/{msgId}",
    auth: "signed-body",
    body: SignedPayloadBody,
    response: InboxAckResponse,
  },
  bridgePoll: {
    method: "GET",
    path: "/v1/bridge/poll",
    auth: "signed-query",
    response: PollResponse,
  },
  transferHealth: {
    method: "GET",
    path: "/v1/transfer/health",
    auth: "anonymous",
    response: TransferHealthResponse,
  },
  transferChunk: {
    method: "POST",
    path: "/v1/transfer/{streamId}/chunk",
    auth: "transfer-headers",
    response: ChunkAck,
  },
  transferState: {
    method: "GET",
    path: "/v1/transfer/{streamId}/state",
    auth: "transfer-headers",
    response: ResumeState,
  },
  transferControl: {
    method: "POST",
    path: "/v1/transfer/control",
    auth: "anonymous",
    response: ControlResponse,
  },
} as const satisfies Record<string, RouteContract>;

export type RouteName = keyof typeof ROUTES;
