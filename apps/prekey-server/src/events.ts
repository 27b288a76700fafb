import { EventEmitter } from "node:events";

/** Server events that the observer shows and presence feeds relay. */
export interface ServerEventMap {
  "inbox.peer_connected": { address: string; at: number };
  "inbox.peer_disconnected": { address: string; at: number };
  "kt.published": { treeSize: number; at: number };
  "ratelimit.rejected": { route: string; limit: string; at: number };
  "inbox.pruned": { blobs: number; at: number };
}
export type ServerEventName = keyof ServerEventMap;

export class ServerEvents {
  readonly #emitter = new EventEmitter();

  constructor() {
    this.#emitter.setMaxListeners(0);
  }

  emit<K extends ServerEventName>(name: K, payload: ServerEventMap[K]): void {
    this.#emitter.emit(name, payload);
  }

  on<K extends ServerEventName>(
    name: K,
    listener: (payload: ServerEventMap[K]) => void,
  ): () => void {
    this.#emitter.on(name, listener);
    return () => this.#emitter.off(name, listener);
  }
}
