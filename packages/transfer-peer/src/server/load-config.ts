import { defaultHome } from "@svc/client/node";
import { LOG_LEVELS, loadEnv, proxyCount, wholeNumber } from "@svc/node-kit";
import { LIMITS } from "@svc/protocol";
import * as v from "valibot";
import {
  DEFAULT_MAX_RESERVED_BYTES,
  DEFAULT_MAX_RESERVED_BYTES_PER_SENDER,
  DEFAULT_MAX_STREAM_BYTES,
  DEFAULT_MAX_STREAMS_PER_SENDER,
  DEFAULT_PARTIAL_TTL_MS,
} from "../receiver/options.js";
import type { ReceiverServerConfig, StoreKind } from "./config.js";

const nonEmpty = v.pipe(v.string(), v.minLength(1, "must not be empty"));
const bytes = (fallback: number) => wholeNumber(fallback, 1, Number.MAX_SAFE_INTEGER);

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
  SVC_TRANSFER_MAX_STREAM_BYTES: bytes(DEFAULT_MAX_STREAM_BYTES),
  SVC_TRANSFER_MAX_STREAMS_PER_SENDER: wholeNumber(DEFAULT_MAX_STREAMS_PER_SENDER, 1),
  SVC_TRANSFER_MAX_RESERVED_BYTES_PER_SENDER: bytes(DEFAULT_MAX_RESERVED_BYTES_PER_SENDER),
  SVC_TRANSFER_MAX_RESERVED_BYTES: bytes(DEFAULT_MAX_RESERVED_BYTES),
  // At least a minute: an idle time shorter than a slow chunk takes would expire live streams.
  SVC_TRANSFER_PARTIAL_TTL_MS: wholeNumber(DEFAULT_PARTIAL_TTL_MS, 60_000),
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
 * `svc transfer receive` keeps stream state in files beside the data, the server in a database.
 */
export function loadTransferConfig(
  env: Record<string, string | undefined>,
  defaults: { store: StoreKind; kt?: "require" | "auto" },
): ReceiverServerConfig {
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
    maxStreamsPerSender: e.SVC_TRANSFER_MAX_STREAMS_PER_SENDER,
    maxReservedBytesPerSender: e.SVC_TRANSFER_MAX_RESERVED_BYTES_PER_SENDER,
    maxReservedBytes: e.SVC_TRANSFER_MAX_RESERVED_BYTES,
    partialTtlMs: e.SVC_TRANSFER_PARTIAL_TTL_MS,
    controlPerIp: e.SVC_TRANSFER_CONTROL_PER_IP,
    trustProxy: e.SVC_TRUST_PROXY,
    logLevel: e.SVC_LOG_LEVEL,
    kt: defaults.kt ?? "require",
  };
}
