// What `svc transfer receive` runs: the receiver runtime of @svc/transfer-peer, imported here
// only, so that where it lives is said in one place.
export { loadTransferConfig, startTransferReceiver as startReceiver } from "@svc/transfer-peer";
