export { checkpointText, defaultOrigin } from "./checkpoint.js";
export {
  deviceListCommitment,
  deviceListSubject,
  verifyDeviceListBody,
} from "./device-list-proof.js";
export { KtVerifyError, type KtVerifyErrorCode } from "./errors.js";
export { decodeLeaf, encodeLeaf, type KtLeaf, LEAF_DOMAIN, LEAF_KIND } from "./leaf.js";
export {
  COMMITMENT_DOMAIN,
  type CommittedKeys,
  decodeLeafV2,
  encodeLeafV2,
  isLeafV2,
  type KtLeafV2,
  LEAF_V2_DOMAIN,
  LEAF_V2_SIZE,
  leafCommitment,
} from "./leaf-v2.js";
export {
  type FetchFunction,
  type HttpLogClient,
  httpLogClient,
  type KtLogId,
  type KtVrfAnswer,
  type LogClient,
} from "./log-client.js";
export {
  KtMonitor,
  type KtMonitorEvent,
  type KtMonitorFollowOptions,
  type KtMonitorOptions,
} from "./monitor.js";
export {
  KEM_KEY_HASH_SIZE,
  type KtClaim,
  type KtKemClaim,
  type KtProof,
  type KtProofBody,
  ktProofToJson,
  OPENING_SIZE,
  parseKtProof,
  type VerifiedKtProof,
  VRF_PROOF_SIZE,
  verifyKtProofBody,
} from "./proof.js";
export {
  defaultSthVerifier,
  portableSthVerifier,
  type SthSignatureVerifier,
  verifySthSignature,
  webCryptoEd25519,
} from "./signature.js";
export {
  DOMAIN_STH,
  logIdOf,
  parseSth,
  type SignedTreeHead,
  type SthJson,
  sthMessage,
  sthToJson,
  type TreeHead,
} from "./sth.js";
export {
  type KeyValueStorage,
  localStorageStore,
  memoryStore,
  type TrustedSthStore,
} from "./store.js";
export {
  DEFAULT_MAX_STALE_MS,
  KtVerifier,
  type KtVerifierOptions,
  MAX_FUTURE_SKEW_MS,
} from "./verifier.js";
export { VRF_INDEX_LENGTH, vrfIndex } from "./vrf-index.js";
export {
  type ParsedWitnessPolicy,
  parseWitnessPolicy,
  type WitnessPolicy,
} from "./witness-policy.js";
export { MAX_COSIGNATURE_SKEW_MS } from "./witness-quorum.js";
