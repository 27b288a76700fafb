export { bearerToken, tokenMatches } from "./bearer-token.js";
export { type BodyBuffers, type ReadBodyOptions, readBody, requireDeclaredLength } from "./body.js";
export { clientIp } from "./client-ip.js";
export { errorResponder, routeNotFound } from "./errors.js";
export { readJsonBody } from "./json-body.js";
export { createMetricsRegistry, type MetricsRegistry } from "./metrics.js";
export { decodeBase64Native, sha256Hex } from "./native-codecs.js";
export { alreadySent, nodeResponse, nodeUpgrade } from "./node-bindings.js";
export { observeRequests, type RequestVariables } from "./observe-requests.js";
export { createRateLimit, type RateLimit, type RateLimitOptions, unlimited } from "./rate-limit.js";
export {
  type BindOptions,
  type BoundPort,
  bindPort,
  type ListeningServer,
  type ListenSettings,
  listen,
  type ServeOptions,
  stopOnSignals,
} from "./serve.js";
export { rawPath, requireFresh, signedBodyValid, signedBodyValidFor } from "./signed-body.js";
export {
  type BridgeQuery,
  type PresenceQuery,
  parseBridgeQuery,
  parsePresenceQuery,
  queryParam,
  requireRecipientSignature,
  type SignedQuery,
  verifySignedQuery,
} from "./signed-query.js";
export { END_GRACE_MS, EventStream } from "./sse/event-stream.js";
export { PingTicker } from "./sse/pings.js";
export { createWebEventStream, type WebEventStream } from "./sse/web-event-stream.js";
