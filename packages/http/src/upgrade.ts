import { type IncomingMessage, type Server, STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

type Fetch = (request: Request, env: unknown) => Response | Promise<Response>;

/**
 * Sends HTTP upgrade requests through the app like any request, with the raw socket in
 * `c.env.upgrade`: the WebSocket bridge route authenticates, then takes the socket over. Any
 * other answer (an error, a route without upgrades) is written to the socket as plain HTTP.
 */
export function routeUpgrades(server: Server, fetch: Fetch): void {
  server.on("upgrade", (incoming: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {});
    answerUpgrade(fetch, incoming, socket, head).catch(() => socket.destroy());
  });
}

async function answerUpgrade(
  fetch: Fetch,
  incoming: IncomingMessage,
  socket: Duplex,
  head: Buffer,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const url = new URL(incoming.url ?? "/", `http://${incoming.headers.host ?? "localhost"}`);
  const request = new Request(url, { method: incoming.method ?? "GET", headers });
  const response = await fetch(request, { incoming, upgrade: { socket, head } });
  if (response.headers.has("x-hono-already-sent") || socket.destroyed) return;
  const body = Buffer.from(await response.arrayBuffer());
  const lines = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`];
  response.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "connection") lines.push(`${name}: ${value}`);
  });
  lines.push(`content-length: ${body.length}`, "connection: close", "", "");
  socket.end(Buffer.concat([Buffer.from(lines.join("\r\n")), body]));
}
