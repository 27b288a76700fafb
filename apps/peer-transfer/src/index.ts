export { loadTransferConfig, type StoreKind, type TransferConfig } from "./config.js";
export { type ReceiverHooks, type RunningReceiver, startReceiver } from "./receiver.js";
