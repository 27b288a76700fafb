import WebSocket from "ws";
import type { ClientOptions } from "../options.js";
import type { WebSocketConstructor } from "../transports/websocket.js";

export { type FileStoreOptions, fileStore } from "./file-store.js";
export { defaultHome, type HomeEnv } from "./home.js";

/** What a client needs on Node beyond the portable defaults: the `ws` package's WebSocket (Node 20 has none). */
export function nodeClientOptions(): Pick<ClientOptions, "WebSocket"> {
  const Socket: WebSocketConstructor = WebSocket;
  return { WebSocket: Socket };
}
