import type { IncomingMessage } from "node:http";
import { concatBytes } from "@svc/canonical";
import { badRequest, SvcError } from "@svc/protocol";
import type { Context } from "hono";
import { unreadNodeRequest } from "./node-bindings.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The 413 names the limit, and what sets it (`origin`) where the operator configures it. */
const tooLarge = (limit: number, origin: string | undefined) =>
  new SvcError(
    "SVC_TOO_LARGE",
    `request body exceeds the ${limit}-byte limit${origin ? ` (${origin})` : ""}`,
  );

/**
 * Reads a JSON object body of at most `limit` bytes. The size is judged from Content-Length
 * before reading and again while streaming, so an oversized body is never buffered or parsed.
 * `origin` says where the limit comes from, for the 413's message, when it is configured.
 */
export async function readJsonBody(
  c: Context,
  limit: number,
  origin?: string,
): Promise<Record<string, unknown>> {
  const declared = c.req.header("content-length");
  if (declared !== undefined && (!/^\d+$/.test(declared) || Number(declared) > limit)) {
    throw /^\d+$/.test(declared) ? tooLarge(limit, origin) : badRequest("invalid Content-Length");
  }
  const incoming = unreadNodeRequest(c);
  const bytes = incoming
    ? await readNodeBody(incoming, limit, origin)
    : await readWebBody(c.req.raw, limit, origin);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw badRequest("request body is not valid UTF-8");
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badRequest("request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/**
 * Reads the body straight from the node request: the web stream the node server would otherwise
 * wrap around it costs about a tenth of a small deposit's CPU time. Past the limit the rest of the
 * body is left for the node server to discard once the 413 is sent.
 */
function readNodeBody(
  incoming: IncomingMessage,
  limit: number,
  origin: string | undefined,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (outcome: () => void) => {
      incoming.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      outcome();
    };
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) return settle(() => reject(tooLarge(limit, origin)));
      chunks.push(chunk);
    };
    const onEnd = () => settle(() => resolve(Buffer.concat(chunks, size)));
    const onError = (error: Error) => settle(() => reject(error));
    const onClose = () => settle(() => reject(badRequest("the request body ended early")));
    incoming.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

async function readWebBody(
  request: Request,
  limit: number,
  origin: string | undefined,
): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit, origin);
    }
    chunks.push(value);
  }
  return concatBytes(...chunks);
}
