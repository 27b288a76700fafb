export { bridgeUrl, presenceUrl, type QueryOptions } from "./bridge.js";
export { depositPath, envelope, InboxClient, msgIdOf, T0 } from "./inbox.js";
export { kemPreKey, kemPreKeys, randomKemPreKeys } from "./kem-keys.js";
export {
  deleteBody,
  deletePath,
  type Json,
  oneTimePreKeys,
  randomOneTimePreKeys,
  range,
  registerBody,
  registerFields,
  replenishBody,
  sign,
  type TestIdentity,
  testIdentity,
} from "./keys.js";
export { type Party, party } from "./party.js";
export { type Signer, type SignerFromSeed, seedOf, seedSigner, signedBodyBy } from "./signer.js";
export { type SseEvent, SseReader } from "./sse-reader.js";
export {
  type Answer,
  inProcess,
  jsonRequest,
  overHttp,
  type PreparedRequest,
  send,
  type Transport,
} from "./transport.js";
