export {
  type Appended,
  type DeviceListChange,
  deviceListChange,
  type KtChange,
} from "./append-batch.js";
export { KtLogError, type KtLogErrorCode } from "./errors.js";
export { KtLog, type KtLogOptions } from "./kt-log.js";
export type { IdentityKeys } from "./proof-cache.js";
export { ktLeaves, ktLogMigrations } from "./schema.js";
export { createSthSigner, type SthSigner } from "./signer.js";
export type { WitnessEndpoint, WitnessEvent } from "./witnesses/witnessing.js";
