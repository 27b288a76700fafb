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
export { ClientError, type ClientErrorCode } from "./errors.js";
export { MAX_RETRY_WAIT_SECONDS } from "./http.js";
