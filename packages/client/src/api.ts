import { ed25519Sign } from "@svc/canonical";
import {
  type BridgeKind,
  bridgeQueryParams,
  type DeviceListVersion,
  type DeviceListWire,
  type JsonRouteName,
  LIMITS,
  ROUTES,
} from "@svc/protocol";
import type * as v from "valibot";
import { createBodySigner } from "./body-signer.js";
import { type HttpOptions, request, urlOf } from "./http.js";

type Routes = typeof ROUTES;
/**
 * The routes SvcApi calls: every JSON route of the prekey server but the operator's observer
 * (transfer is a peer's).
 */
export type ApiRouteName = {
  [N in JsonRouteName]: Routes[N] extends { server: "receiver" } | { auth: "observer-token" }
    ? never
    : N;
}[JsonRouteName];

/** The validated success answer of a route. */
export type ApiAnswer<N extends ApiRouteName> = v.InferOutput<Routes[N]["response"]>;
/** A signed route's body as the caller gives it: signedAt and signature are added by the client. */
export type ApiFields<N extends ApiRouteName> = Routes[N] extends {
  body: infer S extends v.GenericSchema;
}
  ? Omit<v.InferInput<S>, "signedAt" | "signature">
  : never;

/** The 32-byte Ed25519 seed that signs a request (an identity signing key). */
export type SigningKey = Uint8Array;

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ApiOptions extends HttpOptions {
  /** Clock for signedAt (Unix ms). */
  now: () => number;
}

/**
 * One typed method per route of ROUTES (the transfer routes excepted: another server answers
 * them). Signed bodies get their signedAt and D3 signature here, bridge polls their D7 signed
 * query; answers are validated against the route's schema; an ErrorResponse is thrown as SvcError.
 */
export interface SvcApi {
  health(options?: CallOptions): Promise<ApiAnswer<"health">>;
  healthz(options?: CallOptions): Promise<ApiAnswer<"healthz">>;
  /** Resolves when every backend is ready; a 503 (not ready) is ClientError BAD_RESPONSE. */
  ready(options?: CallOptions): Promise<ApiAnswer<"ready">>;
  keysRegister(
    fields: ApiFields<"keysRegister">,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"keysRegister">>;
  /** Consumes one of the address's one-time prekeys. A 404 SvcError carries `extra.ktProof`. */
  keysBundle(address: string, options?: CallOptions): Promise<ApiAnswer<"keysBundle">>;
  keysCount(address: string, options?: CallOptions): Promise<ApiAnswer<"keysCount">>;
  keysReplenish(
    fields: ApiFields<"keysReplenish">,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"keysReplenish">>;
  keysDelete(
    address: string,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"keysDelete">>;
  ktLogId(options?: CallOptions): Promise<ApiAnswer<"ktLogId">>;
  ktSth(options?: CallOptions): Promise<ApiAnswer<"ktSth">>;
  ktSthAt(treeSize: number, options?: CallOptions): Promise<ApiAnswer<"ktSthAt">>;
  ktConsistency(
    query: { from: number; to?: number },
    options?: CallOptions,
  ): Promise<ApiAnswer<"ktConsistency">>;
  ktLeaves(
    query: { start: number; end?: number },
    options?: CallOptions,
  ): Promise<ApiAnswer<"ktLeaves">>;
  ktVrf(address: string, options?: CallOptions): Promise<ApiAnswer<"ktVrf">>;
  inboxRegister(
    fields: ApiFields<"inboxRegister">,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"inboxRegister">>;
  inboxUnregister(
    address: string,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"inboxUnregister">>;
  /** `fields.senderPublicKey` must be the public key of `key`. */
  inboxDeposit(
    address: string,
    fields: ApiFields<"inboxDeposit">,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"inboxDeposit">>;
  /**
   * Several deposits in one request, each signed as for its own inboxDeposit; the server's
   * outcome of each, in order. A server without the route answers 404 SVC_NOT_FOUND.
   */
  /**
   * Several deposits in one request. With `deviceLists` (the versions the recipients were chosen
   * from), a version that is not the server's latest is SvcError SVC_DEVICE_LIST_CHANGED with
   * `extra.deviceLists`, the latest ones, and nothing is stored.
   */
  inboxDepositBatch(
    deposits: Array<{ address: string; fields: ApiFields<"inboxDeposit"> }>,
    key: SigningKey,
    options?: CallOptions & { deviceLists?: DeviceListVersion[] },
  ): Promise<ApiAnswer<"inboxDepositBatch">>;
  inboxFetch(
    address: string,
    fields: ApiFields<"inboxFetch">,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"inboxFetch">>;
  inboxAck(
    address: string,
    msgId: string,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"inboxAck">>;
  /**
   * An account's latest device list with its KT proof. A 404 SvcError (SVC_NO_DEVICE_LIST: the
   * account never had a list) carries `extra.ktProof`, the proof of absence.
   */
  devicesGet(account: string, options?: CallOptions): Promise<ApiAnswer<"devicesGet">>;
  devicesVersion(
    account: string,
    version: number,
    options?: CallOptions,
  ): Promise<ApiAnswer<"devicesVersion">>;
  /**
   * The next version of an account's list. Its own signature authenticates it, so no signed body
   * wraps it. A lost race is SvcError SVC_DEVICE_LIST_CONFLICT with `extra.currentVersion`.
   */
  devicesWrite(
    account: string,
    list: DeviceListWire,
    options?: CallOptions,
  ): Promise<ApiAnswer<"devicesWrite">>;
  /** Long-poll: answers at once when envelopes after `since` are queued, else within timeoutMs. */
  bridgePoll(
    query: BridgeQueryFields & { timeoutMs?: number },
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"bridgePoll">>;
  /** A signed URL of the SSE (`stream`) or WebSocket (`ws`, ws:/wss: scheme) bridge; valid 5 minutes. */
  bridgeUrl(kind: "stream" | "ws", query: BridgeQueryFields, key: SigningKey): string;
  /** The server's VAPID public key; 404 SvcError SVC_FEATURE_DISABLED when push is off. */
  pushVapid(options?: CallOptions): Promise<ApiAnswer<"pushVapid">>;
  /** Adds (or renews) a Web Push subscription of `fields.address`; `key` is its inbox key. */
  pushSubscribe(
    fields: ApiFields<"pushSubscribe">,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"pushSubscribe">>;
  /** Removes the subscription with `fields.endpoint`; `removed` is false when there was none. */
  pushUnsubscribe(
    fields: ApiFields<"pushUnsubscribe">,
    key: SigningKey,
    options?: CallOptions,
  ): Promise<ApiAnswer<"pushUnsubscribe">>;
}

export interface BridgeQueryFields {
  address: string;
  /** receivedAt cursor: envelopes after it; absent = from the start. */
  since?: number;
}

export function createApi(options: ApiOptions): SvcApi {
  const http: HttpOptions = options;
  const signBody = createBodySigner();
  const signed =
    (method: string, path: string, fields: Record<string, unknown>, key: SigningKey) => () =>
      signBody(method, path, { ...fields, signedAt: options.now() }, key);
  const get = <N extends ApiRouteName>(
    name: N,
    params?: PathParams,
    query?: Record<string, number | undefined>,
    call?: CallOptions,
  ) =>
    request(http, {
      method: "GET",
      path: pathOf(ROUTES[name], params),
      query,
      response: ROUTES[name].response,
      signal: call?.signal,
    }) as Promise<ApiAnswer<N>>;
  const write = <N extends ApiRouteName>(
    name: N,
    params: PathParams | undefined,
    fields: Record<string, unknown>,
    key: SigningKey,
    call?: CallOptions,
  ) => {
    const { method } = ROUTES[name];
    const path = pathOf(ROUTES[name], params);
    return request(http, {
      method,
      path,
      body: signed(method, path, fields, key),
      response: ROUTES[name].response,
      signal: call?.signal,
    }) as Promise<ApiAnswer<N>>;
  };
  const signedQuery = (kind: BridgeKind, query: BridgeQueryFields, key: SigningKey) =>
    bridgeQueryParams(
      { address: query.address, kind, since: query.since, signedAt: options.now() },
      (message) => ed25519Sign(message, key),
    );

  return {
    health: (call) => get("health", undefined, undefined, call),
    healthz: (call) => get("healthz", undefined, undefined, call),
    ready: (call) => get("ready", undefined, undefined, call),
    keysRegister: (fields, key, call) => write("keysRegister", undefined, fields, key, call),
    keysBundle: (address, call) => get("keysBundle", { address }, undefined, call),
    keysCount: (address, call) => get("keysCount", { address }, undefined, call),
    keysReplenish: (fields, key, call) => write("keysReplenish", undefined, fields, key, call),
    keysDelete: (address, key, call) => write("keysDelete", { address }, {}, key, call),
    ktLogId: (call) => get("ktLogId", undefined, undefined, call),
    ktSth: (call) => get("ktSth", undefined, undefined, call),
    ktSthAt: (treeSize, call) => get("ktSthAt", { treeSize }, undefined, call),
    ktConsistency: (query, call) => get("ktConsistency", undefined, query, call),
    ktLeaves: (query, call) => get("ktLeaves", undefined, query, call),
    ktVrf: (address, call) => get("ktVrf", { address }, undefined, call),
    inboxRegister: (fields, key, call) => write("inboxRegister", undefined, fields, key, call),
    inboxUnregister: (address, key, call) => write("inboxUnregister", { address }, {}, key, call),
    inboxDeposit: (address, fields, key, call) =>
      write("inboxDeposit", { address }, fields, key, call),
    inboxDepositBatch: (deposits, key, call) =>
      request(http, {
        method: "POST",
        path: ROUTES.inboxDepositBatch.path,
        body: async () => ({
          deposits: await Promise.all(
            deposits.map(async ({ address, fields }) => {
              const path = pathOf(ROUTES.inboxDeposit, { address });
              return { address, body: await signed("POST", path, fields, key)() };
            }),
          ),
          ...(call?.deviceLists === undefined ? {} : { deviceLists: call.deviceLists }),
        }),
        response: ROUTES.inboxDepositBatch.response,
        signal: call?.signal,
      }) as Promise<ApiAnswer<"inboxDepositBatch">>,
    inboxFetch: (address, fields, key, call) => write("inboxFetch", { address }, fields, key, call),
    inboxAck: (address, msgId, key, call) => write("inboxAck", { address, msgId }, {}, key, call),
    devicesGet: (account, call) => get("devicesGet", { account }, undefined, call),
    devicesVersion: (account, version, call) =>
      get("devicesVersion", { account, version }, undefined, call),
    devicesWrite: (account, list, call) =>
      request(http, {
        method: "POST",
        path: pathOf(ROUTES.devicesWrite, { account }),
        body: async () => list,
        response: ROUTES.devicesWrite.response,
        signal: call?.signal,
      }),
    bridgePoll: (query, key, call) =>
      request(http, {
        method: "GET",
        path: ROUTES.bridgePoll.path,
        // Signed once: a retry after Retry-After stays well inside the 5-minute freshness window.
        query: { ...signedQuery("poll", query, key), timeoutMs: query.timeoutMs },
        response: ROUTES.bridgePoll.response,
        signal: call?.signal,
        holdMs: query.timeoutMs ?? LIMITS.pollTimeoutMs.default,
      }),
    bridgeUrl(kind, query, key) {
      const route = kind === "ws" ? ROUTES.bridgeWs : ROUTES.bridgeStream;
      const url = urlOf(options.server, route.path, signedQuery(kind, query, key));
      return kind === "ws" ? url.replace(/^http/, "ws") : url;
    },
    pushVapid: (call) => get("pushVapid", undefined, undefined, call),
    pushSubscribe: (fields, key, call) => write("pushSubscribe", undefined, fields, key, call),
    pushUnsubscribe: (fields, key, call) => write("pushUnsubscribe", undefined, fields, key, call),
  };
}

type PathParams = Record<string, string | number>;

/** The route's path template with each `{param}` replaced by its segment. */
function pathOf(route: { path: string }, params: PathParams = {}): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`${route.path} needs ${name}`);
    return segment(String(value));
  });
}

/**
 * A path segment as sent and signed. Addresses (D2) and msgIds need no escaping; anything else is
 * percent-encoded, and the signature covers the encoded form, as D3 says.
 */
export function segment(value: string): string {
  return /^[A-Za-z0-9@:_.-]+$/.test(value) && value !== "." && value !== ".."
    ? value
    : encodeURIComponent(value);
}
