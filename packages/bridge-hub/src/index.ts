export type { AdapterSink, BridgeAdapter, PresenceSync } from "./adapter.js";
export type { BridgeHandle, BridgeHubOptions, OpenBridge } from "./hub.js";
export { BridgeHub } from "./hub.js";
export { inProcessAdapter } from "./in-process-adapter.js";
export type { PostgresAdapterOptions } from "./postgres-adapter.js";
export { DEPOSIT_CHANNEL, postgresAdapter } from "./postgres-adapter.js";
export { bridgeHubMigrations } from "./schema.js";
export type {
  EndReason,
  EnvelopeSink,
  EnvelopeSource,
  PresenceChange,
  PresenceSink,
  PushTransport,
} from "./types.js";
