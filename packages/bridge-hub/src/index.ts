export type { AdapterSink, BridgeAdapter, PresenceSync } from "./adapter.js";
export type { BridgeHandle, BridgeHubOptions, OpenBridge } from "./hub.js";
export { BridgeHub, DEFAULT_HEARTBEAT_MS } from "./hub.js";
export { inProcessAdapter } from "./in-process-adapter.js";
export type { PostgresAdapterOptions } from "./postgres-adapter.js";
export {
  DEFAULT_INSTANCE_EXPIRY_MS,
  DEPOSIT_CHANNEL,
  PRESENCE_CHANNEL,
  postgresAdapter,
} from "./postgres-adapter.js";
export { BATCH_LIMIT, MAX_UNSENT_BYTES } from "./push-bridge.js";
export { bridgeHubMigrations } from "./schema.js";
export type {
  EndReason,
  EnvelopeSink,
  EnvelopeSource,
  PresenceChange,
  PresenceSink,
  PushTransport,
} from "./types.js";
