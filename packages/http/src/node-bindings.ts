import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { SvcError } from "@svc/protocol";
import type { Context } from "hono";

/** What the node server passes as `c.env`: the raw request and response, or an upgrade. */
interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
  upgrade?: { socket: Duplex; head: Buffer };
}

/** The node request behind `c`, when served by the node server and its body is still unread. */
export function unreadNodeRequest(c: Context): IncomingMessage | undefined {
  const incoming = (c.env as NodeBindings | undefined)?.incoming;
  return incoming && !incoming.readableDidRead ? incoming : undefined;
}

/** The node response of a plain HTTP request, to stream events to without a web stream. */
export function nodeResponse(c: Context): ServerResponse {
  const outgoing = (c.env as NodeBindings | undefined)?.outgoing;
  if (!outgoing) throw new SvcError("SVC_BAD_REQUEST", "this route needs a plain HTTP request");
  return outgoing;
}

/** The socket of a WebSocket upgrade request, when the request is one. */
export function nodeUpgrade(
  c: Context,
): { incoming: IncomingMessage; socket: Duplex; head: Buffer } | undefined {
  const env = c.env as NodeBindings | undefined;
  if (!env?.incoming || !env.upgrade) return undefined;
  return { incoming: env.incoming, ...env.upgrade };
}

/** Tells the node server (and the upgrade hook) that the route wrote the response itself. */
export function alreadySent(): Response {
  const response = new Response(null, { headers: { "x-hono-already-sent": "true" } });
  // @hono/node-server replaces the global Response with a lightweight one whose fast path
  // ignores x-hono-already-sent and writes headers again; reading `body` moves this response off
  // that fast path (a no-op for a standard Response).
  void response.body;
  return response;
}
