import { connect, type Socket } from "node:net";
import type { Answer } from "../transport.js";

/** The status and text of an answer, without the cost of building a fetch `Response`. */
export class SocketAnswer implements Answer {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {}

  text(): Promise<string> {
    return Promise.resolve(this.body);
  }
}

/** A transport on keep-alive sockets; `close()` ends them. */
export type KeepAliveSockets = ((path: string, init: RequestInit) => Promise<SocketAnswer>) & {
  close(): void;
};

/**
 * A keep-alive HTTP/1.1 load generator on bare sockets, one request at a time per connection
 * (like wrk: no pipelining). node:http's client costs about 55 µs of CPU per request here, as much
 * as the server under test; on a two-core machine that shared CPU would be measured as server
 * slowness. This one writes a prebuilt request head and reads only the status, the framing
 * headers and the body. Bodies are sent as given (strings), with a JSON content type.
 */
export function keepAliveSockets(baseUrl: string, maxSockets: number): KeepAliveSockets {
  const { hostname, port } = new URL(baseUrl);
  const idle: Connection[] = [];
  const waiting: Array<(connection: Connection) => void> = [];
  const all = new Set<Connection>();
  let closed = false;

  const acquire = (): Promise<Connection> => {
    let connection = idle.pop();
    while (connection?.broken) connection = idle.pop();
    if (connection) return Promise.resolve(connection);
    if (all.size < maxSockets) {
      const created = new Connection(hostname, Number(port), () => all.delete(created));
      all.add(created);
      return Promise.resolve(created);
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (connection: Connection) => {
    if (connection.broken || closed) {
      all.delete(connection);
      connection.destroy();
      return;
    }
    const next = waiting.shift();
    if (next) next(connection);
    else idle.push(connection);
  };
  const transport = async (path: string, init: RequestInit) => {
    if (init.body !== undefined && init.body !== null && typeof init.body !== "string") {
      throw new TypeError("init.body must be a string");
    }
    const connection = await acquire();
    try {
      return await connection.request(init.method ?? "GET", path, hostname, init.body ?? undefined);
    } finally {
      release(connection);
    }
  };
  return Object.assign(transport, {
    close() {
      closed = true;
      for (const connection of all) connection.destroy();
      all.clear();
    },
  });
}

const HEAD_END = Buffer.from("\r\n\r\n");

class Connection {
  broken = false;
  readonly #socket: Socket;
  #buffered: Buffer = Buffer.alloc(0);
  #pending?: { resolve(answer: SocketAnswer): void; reject(error: Error): void };

  constructor(host: string, port: number, onGone: () => void) {
    this.#socket = connect({ host, port, noDelay: true });
    this.#socket.on("data", (chunk: Buffer) => {
      this.#buffered = this.#buffered.length ? Buffer.concat([this.#buffered, chunk]) : chunk;
      this.#parse();
    });
    const fail = (error: Error) => {
      this.broken = true;
      onGone();
      this.#pending?.reject(error);
      this.#pending = undefined;
    };
    this.#socket.on("error", fail);
    this.#socket.on("close", () => fail(new Error("connection closed")));
  }

  request(method: string, path: string, host: string, body?: string): Promise<SocketAnswer> {
    if (this.broken) return Promise.reject(new Error("connection closed"));
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\n`;
      if (body === undefined) {
        this.#socket.write(`${head}\r\n`);
        return;
      }
      const payload = Buffer.from(body);
      head += `content-type: application/json\r\ncontent-length: ${payload.length}\r\n\r\n`;
      this.#socket.write(Buffer.concat([Buffer.from(head), payload]));
    });
  }

  destroy(): void {
    this.#socket.destroy();
  }

  #parse(): void {
    const headEnd = this.#buffered.indexOf(HEAD_END);
    if (headEnd === -1 || !this.#pending) return;
    const head = this.#buffered.toString("latin1", 0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    const bodyStart = headEnd + HEAD_END.length;
    let body: Buffer | undefined;
    let consumed = 0;
    if (length) {
      consumed = bodyStart + Number(length[1]);
      if (this.#buffered.length >= consumed) body = this.#buffered.subarray(bodyStart, consumed);
    } else if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
      const chunked = readChunked(this.#buffered, bodyStart);
      if (chunked) [body, consumed] = chunked;
    } else {
      this.broken = true;
      this.#pending.reject(new Error("answer without a length"));
      this.#pending = undefined;
      return;
    }
    if (!body) return;
    const { resolve } = this.#pending;
    this.#pending = undefined;
    this.#buffered = this.#buffered.subarray(consumed);
    if (/\r\nconnection: *close/i.test(head)) this.broken = true;
    resolve(new SocketAnswer(status, body.toString("utf8")));
  }
}

/** The body of a complete chunked message starting at `from`, and where it ends. */
function readChunked(data: Buffer, from: number): [Buffer, number] | undefined {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(data.toString("latin1", at, lineEnd), 16);
    const start = lineEnd + 2;
    if (size === 0) {
      const end = data.indexOf(HEAD_END, lineEnd);
      return end === -1 ? undefined : [Buffer.concat(parts), end + HEAD_END.length];
    }
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    at = start + size + 2;
  }
}
