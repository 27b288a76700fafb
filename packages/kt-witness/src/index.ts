export {
  type AddCheckpointRequest,
  formatAddCheckpoint,
  MAX_PROOF_LINES,
  parseAddCheckpoint,
} from "./add-checkpoint.js";
export { WitnessError, type WitnessErrorCode } from "./errors.js";
export { FileWitnessState } from "./file-state.js";
export { loadOrCreateSignerKey, readSignerKeyFile } from "./key-file.js";
export {
  MAX_ADD_CHECKPOINT_BYTES,
  TLOG_SIZE_TYPE,
  type WitnessOutcome,
  type WitnessRoutesOptions,
  witnessRoutes,
} from "./routes.js";
export { type CosignedTree, MemoryWitnessState, type WitnessState } from "./state.js";
export { LOCK_FILE, lockStateDir } from "./state-lock.js";
export { Witness, type WitnessAnswer, type WitnessOptions } from "./witness.js";
export { type SubmitOptions, type SubmitResult, submitCheckpoint } from "./witness-client.js";
