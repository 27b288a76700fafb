import { get, type IncomingMessage } from "node:http";
import WebSocket from "ws";

/** A held connection: the status it opened with (101 and 200 are open) and how to end it. */
export interface HeldConnection {
  status: number;
  close(): void;
}

export interface StreamHandlers {
  /** An SSE event (`event:` name, `data:` text) or a WebSocket text frame (name "message"). */
  onEvent(event: string, data: string): void;
  /** The server or the network ended the connection (never called after close()). */
  onEnd(): void;
}

/**
 * An event stream on node:http (fetch's web streams would add their own cost to every event);
 * resolves once the answer's head is in. Comments (`: ping`) are skipped.
 */
export function openEventStream(url: string, handlers: StreamHandlers): Promise<HeldConnection> {
  return new Promise((resolve) => {
    let closed = false;
    let ended = false;
    const end = () => {
      if (closed || ended) return;
      ended = true;
      handlers.onEnd();
    };
    const request = get(url, { agent: false }, (res: IncomingMessage) => {
      const close = () => {
        closed = true;
        res.destroy();
      };
      if (res.statusCode !== 200) {
        res.resume();
        closed = true;
        resolve({ status: res.statusCode ?? 0, close });
        return;
      }
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let cut = buffer.indexOf("\n\n");
        while (cut !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          dispatch(block, handlers);
          cut = buffer.indexOf("\n\n");
        }
      });
      res.on("end", end);
      res.on("error", end);
      res.on("close", end);
      resolve({ status: 200, close });
    });
    request.once("error", () => {
      if (!closed) resolve({ status: 0, close: () => {} });
      closed = true;
    });
  });
}

function dispatch(block: string, handlers: StreamHandlers): void {
  let event = "message";
  let data: string | undefined;
  for (const line of block.split("\n")) {
    if (line.startsWith("event: ")) event = line.slice(7);
    else if (line.startsWith("data: ")) data = line.slice(6);
  }
  if (data !== undefined) handlers.onEvent(event, data);
}

/** A WebSocket whose text frames are events named "message"; resolves once open or refused. */
export function openWebSocket(url: string, handlers: StreamHandlers): Promise<HeldConnection> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url.replace(/^http/, "ws"));
    let closed = false;
    let opened = false;
    const close = () => {
      closed = true;
      socket.terminate();
    };
    socket.on("message", (data: Buffer) => handlers.onEvent("message", String(data)));
    socket.once("open", () => {
      opened = true;
      resolve({ status: 101, close });
    });
    socket.once("unexpected-response", (_request, response) => {
      closed = true;
      response.resume();
      socket.terminate();
      resolve({ status: response.statusCode ?? 0, close: () => {} });
    });
    socket.on("error", () => {
      if (!opened && !closed) {
        closed = true;
        resolve({ status: 0, close: () => {} });
      }
    });
    socket.once("close", () => {
      if (opened && !closed) handlers.onEnd();
    });
  });
}
