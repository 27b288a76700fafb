import { ClientError } from "../errors.js";
import { type Connection, parseEnvelope, type TransportContext } from "./transport.js";

/** The part of the WHATWG WebSocket the client uses; the `ws` package's WebSocket has it too. */
export interface WebSocketLike {
  addEventListener(type: "open" | "error", listener: () => void): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
  addEventListener(
    type: "close",
    listener: (event: { code: number; reason: string }) => void,
  ): void;
  close(code?: number, reason?: string): void;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

/** How long a WebSocket may take to open before the next transport is tried. */
export const WS_OPEN_TIMEOUT_MS = 10_000;

/** The WebSocket bridge: one text frame per envelope. */
export function webSocketTransport(context: TransportContext): Promise<Connection> {
  const Socket = context.WebSocket;
  if (Socket === undefined) {
    return Promise.reject(
      new ClientError("NETWORK", "no WebSocket in this runtime (see options.WebSocket)"),
    );
  }
  return new Promise((resolve, reject) => {
    const socket = new Socket(context.url("ws", context.since()));
    let opened = false;
    let failure: unknown;
    let end: (reason: unknown) => void = () => undefined;
    const ended = new Promise<unknown>((resolveEnd) => {
      end = resolveEnd;
    });
    const timer = setTimeout(() => {
      reject(new ClientError("TIMEOUT", "the WebSocket bridge did not open in time"));
      socket.close();
    }, WS_OPEN_TIMEOUT_MS);
    const onAbort = () => socket.close(1000);
    context.signal.addEventListener("abort", onAbort, { once: true });

    socket.addEventListener("open", () => {
      opened = true;
      clearTimeout(timer);
      resolve({ ended });
    });
    socket.addEventListener("message", (event) => {
      if (failure !== undefined) return;
      try {
        if (typeof event.data !== "string") {
          throw new ClientError("BAD_RESPONSE", "the WebSocket bridge sent a binary frame");
        }
        void context.deliver([parseEnvelope(event.data)]);
      } catch (error) {
        failure = error;
        socket.close(1002);
      }
    });
    socket.addEventListener("error", () => {
      failure ??= new ClientError("NETWORK", "the WebSocket bridge failed");
    });
    socket.addEventListener("close", (event) => {
      clearTimeout(timer);
      context.signal.removeEventListener("abort", onAbort);
      const reason =
        failure ?? new ClientError("NETWORK", `the WebSocket bridge closed (${event.code})`);
      if (!opened) reject(reason);
      end(context.signal.aborted ? undefined : reason);
    });
  });
}
