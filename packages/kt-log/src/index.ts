export {
  type Appended,
  type DeviceListChange,
  deviceListChange,
  type KtChange,
} from "./append-batch.js";
export { KtLogError, type KtLogErrorCode } from "./errors.js";
export type { CurrentIdentities, IdentityKeys } from "./identity-keys.js";
export { KtLog, type KtLogOptions } from "./kt-log.js";
export { ktLeaves, ktLogMigrations } from "./schema.js";
export { createSthSigner, type SthSigner } from "./signer.js";
export type { WitnessEndpoint, WitnessEvent } from "./witnesses/witnessing.js";
