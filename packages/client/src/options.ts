import { CanonicalError, normalizeAddress } from "@svc/canonical";
import { parseWitnessPolicy, type WitnessPolicy } from "@svc/kt-verify";
import { LIMITS } from "@svc/protocol";
import type { KtMode } from "./kt.js";
import type { KeyStore } from "./store.js";
import type { WebSocketConstructor } from "./transports/websocket.js";

export interface ClientOptions {
  /** Base URL of the prekey server, e.g. http://127.0.0.1:8080. */
  server: string;
  store: KeyStore;
  fetch?: typeof fetch;
  /** Default globalThis.WebSocket; on Node 20 pass nodeClientOptions() from @svc/client/node. */
  WebSocket?: WebSocketConstructor;
  /**
   * "require" (default): refuse a server without KT (GET /v1/kt/log_id answers 404) with
   * ClientError KT_UNAVAILABLE, and verify every bundle; "auto": verify every bundle when the
   * server has KT, and always once a log is pinned; "off": no checks (a log pinned earlier is
   * then ignored). Only an explicit choice trusts a directory that proves nothing.
   */
  kt?: KtMode;
  /**
   * Key transparency against split views: trust a bundle's tree head only when its checkpoint
   * (`ktProof.checkpoint`) is signed by the log under `origin` and cosigned by at least
   * `threshold` of `witnesses` (C2SP verifier keys of type 0x04), each cosignature at most
   * `maxAgeMs` old (default 24 h); else KT_VERIFICATION_FAILED (its cause KT_WITNESS_QUORUM, ...).
   * Applies wherever bundles are verified (kt "auto" with a pinned log, "require", verifyKt). A
   * log's default origin is `defaultOrigin(logId)` of @svc/kt-verify. Checked at open.
   */
  witnessPolicy?: WitnessPolicy;
  now?: () => number;
  /** Replenish one-time prekeys up to `target` (100) when the server holds fewer than `threshold` (20). */
  prekeys?: { target?: number; threshold?: number };
  /** Retries of a 429 or 503 after its Retry-After (default 2). */
  maxRetries?: number;
  /**
   * How long a request may go unanswered before it fails with ClientError TIMEOUT (default 30 s);
   * a long-poll gets its own hold time on top.
   */
  requestTimeoutMs?: number;
  /** Problems that end no call: dropped envelopes, handler errors, failed acks, reconnects. */
  onError?: (error: unknown) => void;
}

export interface ResolvedOptions {
  server: string;
  store: KeyStore;
  fetch: typeof fetch;
  WebSocket: WebSocketConstructor | undefined;
  kt: KtMode;
  witnessPolicy: WitnessPolicy | undefined;
  now: () => number;
  prekeys: { target: number; threshold: number };
  maxRetries: number;
  requestTimeoutMs: number;
  onError: (error: unknown) => void;
}

/** Checks the options, naming a bad one with TypeError or RangeError, and fills in defaults. */
export function resolveOptions(options: ClientOptions): ResolvedOptions {
  if (typeof options !== "object" || options === null)
    throw new TypeError("options must be an object");
  const { server, store } = options;
  if (typeof server !== "string" || !/^https?:\/\/[^/]/.test(server)) {
    throw new TypeError("options.server must be an http(s) URL");
  }
  if (typeof store?.load !== "function" || typeof store.save !== "function") {
    throw new TypeError("options.store must be a KeyStore");
  }
  const kt = options.kt ?? "require";
  if (!["auto", "require", "off"].includes(kt)) {
    throw new RangeError('options.kt must be "auto", "require" or "off"');
  }
  if (options.witnessPolicy !== undefined) {
    parseWitnessPolicy(options.witnessPolicy, "options.witnessPolicy");
  }
  const target = options.prekeys?.target ?? 100;
  const threshold = options.prekeys?.threshold ?? Math.min(20, target);
  if (!Number.isSafeInteger(target) || target < 1 || target > LIMITS.prekeysQueued) {
    throw new RangeError(`options.prekeys.target must be an integer in 1..${LIMITS.prekeysQueued}`);
  }
  if (!Number.isSafeInteger(threshold) || threshold < 0 || threshold > target) {
    throw new RangeError("options.prekeys.threshold must be an integer in 0..target");
  }
  const maxRetries = options.maxRetries ?? 2;
  if (!Number.isSafeInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError("options.maxRetries must be a non-negative integer");
  }
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  if (!Number.isSafeInteger(requestTimeoutMs) || requestTimeoutMs < 1) {
    throw new RangeError("options.requestTimeoutMs must be a positive integer");
  }
  const globalWebSocket = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  return {
    server: server.replace(/\/+$/, ""),
    store,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    WebSocket: options.WebSocket ?? globalWebSocket,
    kt,
    witnessPolicy: options.witnessPolicy,
    now: options.now ?? Date.now,
    prekeys: { target, threshold },
    maxRetries,
    requestTimeoutMs,
    onError: options.onError ?? (() => undefined),
  };
}

/** An address argument, normalized (D2); a bad one is a RangeError naming the argument. */
export function addressArgument(value: string, name: string): string {
  if (typeof value !== "string") throw new TypeError(`${name} must be a string`);
  try {
    return normalizeAddress(value);
  } catch (error) {
    if (error instanceof CanonicalError) {
      throw new RangeError(`${name} is not a valid address (docs/protocol.md §2)`);
    }
    throw error;
  }
}
