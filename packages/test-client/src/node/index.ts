export { type KeepAliveSockets, keepAliveSockets, SocketAnswer } from "./keep-alive-sockets.js";
export { nodeSigner } from "./node-signer.js";
