import * as v from "valibot";

export interface RateLimitConfig {
  enabled: boolean;
  registerPerAddress: number;
  registerPerIp: number;
  replenishPerAddress: number;
  bundlePerIp: number;
  bundlePerAddress: number;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  kt: { enabled: boolean; signingKey: string | undefined };
  inbox: {
    enabled: boolean;
    maxBlobBytes: number;
    quota: number;
    minTtlMs: number;
    maxTtlMs: number;
    pruneIntervalMs: number;
  };
  observerToken: string | undefined;
  rateLimit: RateLimitConfig;
  /** Number of reverse proxies in front of the server whose X-Forwarded-For entries are trusted. */
  trustProxy: number;
  logLevel: LogLevel;
}

export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

const onOff = (fallback: "on" | "off") =>
  v.pipe(
    v.optional(v.picklist(["on", "off"], "must be on or off"), fallback),
    v.transform((value) => value === "on"),
  );

const integer = (fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.optional(v.pipe(v.string(), v.regex(/^\d+$/, "must be a whole number")), String(fallback)),
    v.transform(Number),
    v.number(),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

const EnvSchema = v.object({
  SVC_HOST: v.optional(v.pipe(v.string(), v.minLength(1, "must not be empty")), "127.0.0.1"),
  SVC_PORT: integer(8080, 0, 65535),
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
  SVC_INBOX: onOff("on"),
  SVC_OBSERVER_TOKEN: v.optional(
    v.pipe(v.string(), v.minLength(16, "must be at least 16 characters")),
  ),
  SVC_RATE_LIMIT: onOff("on"),
  SVC_RATE_REGISTER_PER_ADDRESS: integer(20, 1),
  SVC_RATE_REGISTER_PER_IP: integer(100, 1),
  SVC_RATE_REPLENISH_PER_ADDRESS: integer(60, 1),
  SVC_RATE_BUNDLE_PER_IP: integer(120, 1),
  SVC_RATE_BUNDLE_PER_ADDRESS: integer(600, 1),
  SVC_TRUST_PROXY: v.pipe(
    v.optional(
      v.union(
        [v.picklist(["on", "off"]), v.pipe(v.string(), v.regex(/^\d+$/))],
        "must be off, on or a number of proxies",
      ),
      "off",
    ),
    v.transform((value) => (value === "off" ? 0 : value === "on" ? 1 : Number(value))),
  ),
  SVC_INBOX_MAX_BLOB_BYTES: integer(1024 * 1024, 1, 64 * 1024 * 1024),
  SVC_INBOX_QUOTA: integer(1000, 1),
  SVC_INBOX_MIN_TTL_MS: integer(60_000, 0),
  SVC_INBOX_MAX_TTL_MS: integer(30 * 24 * 3600_000, 1),
  SVC_INBOX_PRUNE_INTERVAL_MS: integer(30_000, 100),
  SVC_LOG_LEVEL: v.optional(
    v.picklist(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`),
    "info",
  ),
});

/** Reads the configuration from environment variables; every bad value is reported at once. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ""));
  const result = v.safeParse(EnvSchema, present);
  if (!result.success) {
    throw new ConfigError(
      result.issues.map((issue) => `${v.getDotPath(issue) ?? "environment"}: ${issue.message}`),
    );
  }
  const e = result.output;
  if (e.SVC_INBOX_MIN_TTL_MS > e.SVC_INBOX_MAX_TTL_MS) {
    throw new ConfigError(["SVC_INBOX_MIN_TTL_MS: must not exceed SVC_INBOX_MAX_TTL_MS"]);
  }
  return {
    host: e.SVC_HOST,
    port: e.SVC_PORT,
    dataDir: e.SVC_DATA_DIR,
    databaseUrl: e.DATABASE_URL,
    kt: { enabled: e.SVC_KT, signingKey: e.SVC_KT_SIGNING_KEY },
    inbox: {
      enabled: e.SVC_INBOX,
      maxBlobBytes: e.SVC_INBOX_MAX_BLOB_BYTES,
      quota: e.SVC_INBOX_QUOTA,
      minTtlMs: e.SVC_INBOX_MIN_TTL_MS,
      maxTtlMs: e.SVC_INBOX_MAX_TTL_MS,
      pruneIntervalMs: e.SVC_INBOX_PRUNE_INTERVAL_MS,
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
