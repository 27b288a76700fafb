export { type BatcherOptions, createBatcher } from "./batcher.js";
export {
  isErrno,
  readTextIfPresent,
  syncDirectory,
  TEMP_SUFFIX,
  writeFileAtomic,
} from "./durable-file.js";
export { loadEnv, onOff, proxyCount, wholeNumber } from "./env.js";
export { ConfigError, type ConfigErrorCode } from "./errors.js";
export { createFileOnce, loadOrCreateKeyFile, readPrivateFile } from "./key-file.js";
export { KeyedBatches } from "./keyed-batches.js";
export { createLogger, LOG_LEVELS, type LogFields, type Logger, type LogLevel } from "./logger.js";
export { LruMap } from "./lru-map.js";
export { acquirePidLock, type PidLockOptions, releasePidLockSync } from "./pid-lock.js";
export { makePrivateDirectory, restrictTree } from "./private-files.js";
export { notPrivateUnder } from "./private-modes.js";
export { usePrivateUmask } from "./private-umask.js";
