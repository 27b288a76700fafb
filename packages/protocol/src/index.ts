export {
  decodeBundle,
  decodeKemPreKey,
  decodeKemPreKeys,
  decodeOneTimePreKeys,
  decodeSignedPreKey,
  encodeBundle,
  type IdentityKeys,
  type KemPreKey,
  ML_KEM_1024,
  type OneTimePreKey,
  type PreKeyBundleKeys,
  type ServedKemPreKey,
  type SignedPreKey,
} from "./bundle.js";
export { DECIMAL_U64_PATTERN, parseDecimalU64, parseSafeDecimal } from "./decimal.js";
export * from "./devices/index.js";
export { MSG_ID_PATTERN, msgIdOf, RATCHET_ENVELOPE_TYPE } from "./envelope.js";
export {
  badRequest,
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorCode,
  type ErrorResponse,
  errorName,
  SvcError,
  type SvcErrorOptions,
  staleSignature,
} from "./errors.js";
export {
  depositBatchBodyLimit,
  depositBodyLimit,
  KEYS_BODY_LIMIT,
  KEYS_UPLOAD_BODY_LIMIT,
  LIMITS,
  SMALL_BODY_LIMIT,
} from "./limits.js";
export { decodeKey, decodeSigningKey, parseRequest, toSvcError } from "./parse.js";
export * from "./route-params.js";
export {
  errorStatus,
  type JsonRouteName,
  ROUTES,
  type RouteAnswer,
  type RouteAuth,
  type RouteContract,
  type RouteName,
  type RoutePattern,
  type RouteTag,
  routePattern,
} from "./routes.js";
export * from "./schemas/bridge.js";
export * from "./schemas/devices.js";
export { OkResponse, signedPayloadEntries } from "./schemas/fields.js";
export * from "./schemas/inbox.js";
export * from "./schemas/keys.js";
export * from "./schemas/kt.js";
export * from "./schemas/operations.js";
export * from "./schemas/push.js";
export { signBody, signedBody, signedBodyMessage } from "./signed-body.js";
export {
  type BridgeKind,
  type BridgeQuery,
  bridgeQueryMessage,
  bridgeQueryParams,
  type PresenceQuery,
  parseWatched,
  presenceQueryMessage,
  presenceQueryParams,
  type QuerySigner,
} from "./signed-query.js";
