export {
  encryptWakeUp,
  type FixedEncryption,
  MAX_PLAINTEXT_LENGTH,
  RECORD_SIZE,
} from "./encrypt.js";
export {
  checkEndpoint,
  type EndpointPolicy,
  MAX_ENDPOINT_LENGTH,
  REFUSAL,
} from "./endpoint-policy.js";
export { PushError, type PushErrorCode } from "./errors.js";
export { MAX_RETRY_WAIT_MS } from "./retry-after.js";
export { type PushTarget, type SendOptions, type SendOutcome, sendWebPush } from "./send.js";
export {
  AUTH_SECRET_LENGTH,
  decodeSubscriptionKeys,
  type SubscriptionKeys,
} from "./subscription-keys.js";
export { VAPID_JWT_LIFETIME_S, vapidAuthorization, vapidJwt } from "./vapid-jwt.js";
export {
  generateVapidKeys,
  type VapidKeys,
  vapidKeysFromPrivate,
  vapidPublicKeyBase64Url,
} from "./vapid-keys.js";
