import type { LogLevel } from "@svc/node-kit";

export type StoreKind = "database" | "file";

/** What a transfer receiver server runs with: `svc-transfer receive` and the peer-transfer app. */
export interface ReceiverServerConfig {
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
  /** Unfinished streams one sender may have at once. */
  maxStreamsPerSender: number;
  /** Bytes the unfinished streams of one sender, and of all senders, may reserve. */
  maxReservedBytesPerSender: number;
  maxReservedBytes: number;
  /** How long an unfinished stream may sit idle before it expires with its partial file. */
  partialTtlMs: number;
  /** Control requests per minute per client IP: each may make the identity look a sender up. */
  controlPerIp: number;
  /** Reverse proxies in front whose X-Forwarded-For entries are trusted (0: none). */
  trustProxy: number;
  logLevel: LogLevel;
  /** The client's kt option: "require" (a prekey server without a KT log is refused) or "auto". */
  kt: "require" | "auto";
}
