export { type PushSubscriptionWire, SvcError } from "@svc/protocol";
export {
  type ApiAnswer,
  type ApiFields,
  type ApiOptions,
  type ApiRouteName,
  type BridgeQueryFields,
  type CallOptions,
  createApi,
  type SigningKey,
  type SvcApi,
} from "./api.js";
export {
  DEPOSIT_TTL_MS,
  type DeviceListInfo,
  type IdentityInfo,
  type KeysStatus,
  type KtVerification,
  type ReceiveOptions,
  type SendResult,
  type SessionInfo,
  SvcClient,
} from "./client.js";
export { ClientError, type ClientErrorCode, type IdentityChange } from "./errors.js";
export { MAX_RETRY_WAIT_SECONDS } from "./http.js";
export type { ReceivedMessage } from "./inbound.js";
export type { KtMode } from "./kt.js";
export {
  LINK_ATTEMPTS,
  LINK_TIMEOUT_MS,
  type LinkedDevice,
  type LinkOptions,
} from "./linking.js";
export type { ClientOptions } from "./options.js";
export {
  formatSafetyNumber,
  identityFingerprint,
  type Party,
  partyDigits,
  SAFETY_NUMBER_ITERATIONS,
  safetyNumber,
} from "./safety-number.js";
export {
  type ChangedPeer,
  type KnownDeviceList,
  type KtPin,
  type PeerKeys,
  STATE_VERSION,
  type StoredBundle,
  type StoredKemPreKey,
  type StoredPreKey,
  type StoredState,
  type UnackedMessage,
} from "./state.js";
export { type KeyStore, memoryStore } from "./store.js";
export type { SubscribeOptions, Subscription } from "./subscribe.js";
export type { TransportName } from "./transports/transport.js";
export type { WebSocketConstructor, WebSocketLike } from "./transports/websocket.js";
export type { SafetyNumberReport, TrustResult } from "./trust.js";
