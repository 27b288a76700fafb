export { vrfProofToHash, vrfProve, vrfPublicKey, vrfVerify } from "./ecvrf.js";
export type { VrfErrorCode } from "./errors.js";
export { VrfError } from "./errors.js";
export { nobleArithmetic, type ScalarArithmetic, type VrfProver, vrfProver } from "./prover.js";
export {
  OUTPUT_LENGTH as VRF_OUTPUT_LENGTH,
  PROOF_LENGTH as VRF_PROOF_LENGTH,
  PUBLIC_KEY_LENGTH as VRF_PUBLIC_KEY_LENGTH,
  SECRET_KEY_LENGTH as VRF_SECRET_KEY_LENGTH,
  SUITE as VRF_SUITE,
} from "./suite.js";
