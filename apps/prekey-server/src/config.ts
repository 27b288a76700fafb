import {
  ConfigError,
  LOG_LEVELS,
  type LogLevel,
  loadEnv,
  onOff,
  proxyCount,
  wholeNumber,
} from "@svc/node-kit";
import * as v from "valibot";
import { type KtWitnessConfig, parseKtWitnesses } from "./kt-witnesses.js";

export interface RateLimitConfig {
  enabled: boolean;
  registerPerAddress: number;
  registerPerIp: number;
  replenishPerAddress: number;
  bundlePerIp: number;
  bundlePerAddress: number;
}

/** Limits of the node HTTP server against slow and idle clients (see docs/configuration.md). */
export interface HttpTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number | undefined;
}

/** Web Push wake-ups (see docs/configuration.md). */
export interface PushConfig {
  enabled: boolean;
  /** Base64url of the VAPID private scalar; undefined: generated into the data directory. */
  vapidKey: string | undefined;
  /** The VAPID JWT's `sub`: a mailto: or https: URL; undefined: no `sub`. */
  contact: string | undefined;
  /** Take http endpoints and private, loopback and link-local addresses (tests, closed networks). */
  allowPrivateEndpoints: boolean;
  /** At most one wake-up per subscription in this many ms while the address has not fetched. */
  coalesceMs: number;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  kt: {
    enabled: boolean;
    signingKey: string | undefined;
    /** Base64 of the VRF secret key; undefined: generated into the data directory. */
    vrfKey: string | undefined;
    /** The checkpoints' origin; undefined: derived from the logId. */
    origin: string | undefined;
    witnesses: KtWitnessConfig[];
    witnessTimeoutMs: number;
  };
  inbox: {
    enabled: boolean;
    maxBlobBytes: number;
    quota: number;
    minTtlMs: number;
    maxTtlMs: number;
    pruneIntervalMs: number;
    /** How often the hub refreshes its heartbeat and reaps dead instances' presence. */
    presenceHeartbeatMs: number;
    /** How long an instance's heartbeat may be silent before the others reap its presence. */
    presenceExpiryMs: number;
  };
  push: PushConfig;
  http: HttpTimeouts;
  observerToken: string | undefined;
  rateLimit: RateLimitConfig;
  /** Number of reverse proxies in front of the server whose X-Forwarded-For entries are trusted. */
  trustProxy: number;
  logLevel: LogLevel;
}

const EnvSchema = v.object({
  SVC_HOST: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty")), "127.0.0.1"),
  SVC_PORT: wholeNumber(8080, 0, 65535),
  SVC_DATA_DIR: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty")), "./data"),
  DATABASE_URL: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^postgres(ql)?:\/\/.+/, "must be a postgres:// or postgresql:// URL"),
    ),
  ),
  SVC_KT: onOff("on"),
  SVC_KT_SIGNING_KEY: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z0-9+/]{43}=$/, "must be the base64 of a 32-byte Ed25519 seed"),
    ),
  ),
  SVC_KT_VRF_KEY: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z0-9+/]{43}=$/, "must be the base64 of a 32-byte VRF secret key"),
    ),
  ),
  SVC_KT_ORIGIN: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[^\s+]+$/, "must be a note key name: not empty, no '+' and no white space"),
      v.maxLength(255, "must be at most 255 characters"),
    ),
  ),
  SVC_KT_WITNESSES: v.optional(v.string()),
  SVC_KT_WITNESS_TIMEOUT_MS: wholeNumber(3000, 100, 60_000),
  SVC_INBOX: onOff("on"),
  SVC_PUSH: onOff("on"),
  SVC_PUSH_VAPID_KEY: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^[A-Za-z0-9_-]{43}$/, "must be the base64url of a 32-byte P-256 private key"),
    ),
  ),
  SVC_PUSH_CONTACT: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^(mailto:[^\s]+|https:\/\/[^\s]+)$/, "must be a mailto: or https: URL"),
      v.maxLength(255, "must be at most 255 characters"),
    ),
  ),
  SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS: onOff("off"),
  SVC_PUSH_COALESCE_MS: wholeNumber(30_000, 0, 24 * 3600_000),
  SVC_OBSERVER_TOKEN: v.optional(
    v.pipe(v.string(), v.minLength(16, "must be at least 16 characters")),
  ),
  SVC_RATE_LIMIT: onOff("on"),
  SVC_RATE_REGISTER_PER_ADDRESS: wholeNumber(20, 1),
  SVC_RATE_REGISTER_PER_IP: wholeNumber(100, 1),
  SVC_RATE_REPLENISH_PER_ADDRESS: wholeNumber(60, 1),
  SVC_RATE_BUNDLE_PER_IP: wholeNumber(120, 1),
  SVC_RATE_BUNDLE_PER_ADDRESS: wholeNumber(600, 1),
  SVC_TRUST_PROXY: proxyCount(),
  SVC_INBOX_MAX_BLOB_BYTES: wholeNumber(1024 * 1024, 1, 64 * 1024 * 1024),
  SVC_INBOX_QUOTA: wholeNumber(1000, 1),
  SVC_INBOX_MIN_TTL_MS: wholeNumber(60_000, 0),
  SVC_INBOX_MAX_TTL_MS: wholeNumber(30 * 24 * 3600_000, 1),
  SVC_INBOX_PRUNE_INTERVAL_MS: wholeNumber(30_000, 100),
  SVC_PRESENCE_HEARTBEAT_MS: wholeNumber(10_000, 100),
  SVC_PRESENCE_EXPIRY_MS: wholeNumber(30_000, 300),
  SVC_HEADERS_TIMEOUT_MS: wholeNumber(10_000, 1000),
  SVC_REQUEST_TIMEOUT_MS: wholeNumber(60_000, 1000),
  SVC_KEEP_ALIVE_TIMEOUT_MS: wholeNumber(5_000, 1000),
  SVC_MAX_CONNECTIONS: wholeNumber(0, 0),
  SVC_LOG_LEVEL: v.optional(
    v.picklist(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`),
    "info",
  ),
});

/** Reads the configuration from environment variables; every bad value is reported at once. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const e = loadEnv(EnvSchema, env);
  if (e.SVC_INBOX_MIN_TTL_MS > e.SVC_INBOX_MAX_TTL_MS) {
    throw new ConfigError(["SVC_INBOX_MIN_TTL_MS: must not exceed SVC_INBOX_MAX_TTL_MS"]);
  }
  // Under two heartbeats, a live instance that is a little late would be taken for dead.
  if (e.SVC_PRESENCE_EXPIRY_MS < 2 * e.SVC_PRESENCE_HEARTBEAT_MS) {
    throw new ConfigError([
      "SVC_PRESENCE_EXPIRY_MS: must be at least twice SVC_PRESENCE_HEARTBEAT_MS",
    ]);
  }
  const witnesses = parseKtWitnesses(e.SVC_KT_WITNESSES);
  if (witnesses.problems.length > 0) throw new ConfigError(witnesses.problems);
  if (e.SVC_REQUEST_TIMEOUT_MS < e.SVC_HEADERS_TIMEOUT_MS) {
    throw new ConfigError(["SVC_REQUEST_TIMEOUT_MS: must not be below SVC_HEADERS_TIMEOUT_MS"]);
  }
  return {
    host: e.SVC_HOST,
    port: e.SVC_PORT,
    dataDir: e.SVC_DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    kt: {
      enabled: e.SVC_KT,
      signingKey: e.SVC_KT_SIGNING_KEY,
      vrfKey: e.SVC_KT_VRF_KEY,
      origin: e.SVC_KT_ORIGIN,
      witnesses: witnesses.witnesses,
      witnessTimeoutMs: e.SVC_KT_WITNESS_TIMEOUT_MS,
    },
    inbox: {
      enabled: e.SVC_INBOX,
      maxBlobBytes: e.SVC_INBOX_MAX_BLOB_BYTES,
      quota: e.SVC_INBOX_QUOTA,
      minTtlMs: e.SVC_INBOX_MIN_TTL_MS,
      maxTtlMs: e.SVC_INBOX_MAX_TTL_MS,
      pruneIntervalMs: e.SVC_INBOX_PRUNE_INTERVAL_MS,
      presenceHeartbeatMs: e.SVC_PRESENCE_HEARTBEAT_MS,
      presenceExpiryMs: e.SVC_PRESENCE_EXPIRY_MS,
    },
    push: {
      enabled: e.SVC_PUSH,
      vapidKey: e.SVC_PUSH_VAPID_KEY,
      contact: e.SVC_PUSH_CONTACT,
      allowPrivateEndpoints: e.SVC_PUSH_ALLOW_PRIVATE_ENDPOINTS,
      coalesceMs: e.SVC_PUSH_COALESCE_MS,
    },
    http: {
      headersTimeoutMs: e.SVC_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.SVC_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.SVC_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.SVC_MAX_CONNECTIONS === 0 ? undefined : e.SVC_MAX_CONNECTIONS,
    },
    observerToken: e.SVC_OBSERVER_TOKEN,
    rateLimit: {
      enabled: e.SVC_RATE_LIMIT,
      registerPerAddress: e.SVC_RATE_REGISTER_PER_ADDRESS,
      registerPerIp: e.SVC_RATE_REGISTER_PER_IP,
      replenishPerAddress: e.SVC_RATE_REPLENISH_PER_ADDRESS,
      bundlePerIp: e.SVC_RATE_BUNDLE_PER_IP,
      bundlePerAddress: e.SVC_RATE_BUNDLE_PER_ADDRESS,
    },
    trustProxy: e.SVC_TRUST_PROXY,
    logLevel: e.SVC_LOG_LEVEL,
  };
}
