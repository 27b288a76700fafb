import { defaultHome } from "@svc/cli/kit";
import {
  ConfigError,
  LOG_LEVELS,
  type LogLevel,
  loadEnv,
  proxyCount,
  wholeNumber,
} from "@svc/http";
import { LIMITS } from "@svc/protocol";
import * as v from "valibot";

export type StoreKind = "database" | "file";

export interface TransferConfig {
  host: string;
  port: number;
  /** The prekey server where the identity is registered and senders' keys are looked up. */
  server: string;
  /** The key store of the receiving identity, made by `svc init`. */
  home: string;
  /** Where finished files go; partial data and (with the file store) stream state go below it. */
  dir: string;
  store: StoreKind;
  databaseUrl: string | undefined;
  /** The embedded database's directory, when the store is the database without DATABASE_URL. */
  dataDir: string;
  maxChunkBytes: number;
  maxStreamBytes: number;
  /** Control requests per minute per client IP: each may make the identity look a sender up. */
  controlPerIp: number;
  /** Reverse proxies in front whose X-Forwarded-For entries are trusted (0: none). */
  trustProxy: number;
  logLevel: LogLevel;
  /** The client's kt option: "require" (a prekey server without a KT log is refused) or "auto". */
  kt: "require" | "auto";
}

const nonEmpty = v.pipe(v.string(), v.minLength(1, "must not be empty"));
const GIB = 1024 ** 3;

const EnvSchema = v.object({
  SVC_TRANSFER_HOST: v.optional(nonEmpty, "127.0.0.1"),
  SVC_TRANSFER_PORT: wholeNumber(8787, 0, 65535),
  SVC_SERVER: v.optional(
    v.pipe(v.string(), v.regex(/^https?:\/\/[^/]/, "must be an http(s) URL")),
    "http://127.0.0.1:8080",
  ),
  SVC_HOME: v.optional(nonEmpty),
  SVC_TRANSFER_DIR: v.optional(nonEmpty),
  SVC_TRANSFER_STORE: v.optional(v.picklist(["database", "file"], "must be database or file")),
  DATABASE_URL: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^postgres(ql)?:\/\/.+/, "must be a postgres:// or postgresql:// URL"),
    ),
  ),
  SVC_TRANSFER_DATA_DIR: v.optional(nonEmpty),
  SVC_TRANSFER_MAX_CHUNK_BYTES: wholeNumber(LIMITS.maxChunkBytes, 1024, LIMITS.maxChunkBytes),
  SVC_TRANSFER_MAX_STREAM_BYTES: wholeNumber(1024 * GIB, 0, Number.MAX_SAFE_INTEGER),
  SVC_TRANSFER_CONTROL_PER_IP: wholeNumber(120, 1),
  SVC_TRUST_PROXY: proxyCount(),
  SVC_LOG_LEVEL: v.optional(
    v.picklist(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`),
    "info",
  ),
  XDG_DATA_HOME: v.optional(v.string()),
  APPDATA: v.optional(v.string()),
});

/**
 * The receiver's configuration from the environment; every bad value is reported at once (a
 * ConfigError). `defaults` are what the caller decides instead of the environment's defaults:
 * `svc-transfer receive` keeps stream state in files beside the data, the server in a database.
 */
export function loadTransferConfig(
  env: Record<string, string | undefined>,
  defaults: { store: StoreKind; kt?: "require" | "auto" },
): TransferConfig {
  const e = loadEnv(EnvSchema, env);
  const home = e.SVC_HOME ?? defaultHome(e);
  const dir = e.SVC_TRANSFER_DIR ?? `${home}/received`;
  return {
    host: e.SVC_TRANSFER_HOST,
    port: e.SVC_TRANSFER_PORT,
    server: e.SVC_SERVER.replace(/\/+$/, ""),
    home,
    dir,
    store: e.SVC_TRANSFER_STORE ?? defaults.store,
    databaseUrl: e.DATABASE_URL,
    dataDir: e.SVC_TRANSFER_DATA_DIR ?? `${home}/transfer-db`,
    maxChunkBytes: e.SVC_TRANSFER_MAX_CHUNK_BYTES,
    maxStreamBytes: e.SVC_TRANSFER_MAX_STREAM_BYTES,
    controlPerIp: e.SVC_TRANSFER_CONTROL_PER_IP,
    trustProxy: e.SVC_TRUST_PROXY,
    logLevel: e.SVC_LOG_LEVEL,
    kt: defaults.kt ?? "require",
  };
}

export { ConfigError };
