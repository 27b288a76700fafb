import type { Readable } from "node:stream";
import { concatBytes } from "@svc/canonical";
import { badRequest, SvcError } from "@svc/protocol";
import type { Context } from "hono";
import { unreadNodeRequest } from "./node-bindings.js";

/** Buffers a reader of many large bodies reuses: fresh memory is slow to touch the first time. */
export interface BodyBuffers {
  take(length: number): Uint8Array;
  /** Takes back a buffer of take()'s that nothing uses any more. */
  give(buffer: Uint8Array): void;
}

export interface ReadBodyOptions {
  /** Where a body of known length is read into; the caller gives the buffer back. */
  pool?: BodyBuffers;
  /** What sets the limit, named in the 413 where an operator configures it. */
  origin?: string;
}

const tooLarge = (limit: number, origin: string | undefined) =>
  new SvcError(
    "SVC_TOO_LARGE",
    `request body exceeds the ${limit}-byte limit${origin ? ` (${origin})` : ""}`,
  );

const endedEarly = () => badRequest("the request body ended before its Content-Length");

/** 413 when Content-Length announces more than `limit` bytes: judged before reading anything. */
export function requireDeclaredLength(
  c: Context,
  limit: number,
  origin?: string,
): number | undefined {
  const declared = c.req.header("content-length");
  if (declared === undefined) return undefined;
  if (!/^\d+$/.test(declared)) throw badRequest("invalid Content-Length");
  const length = Number(declared);
  if (length > limit) throw tooLarge(limit, origin);
  return length;
}

/**
 * The binary body, of at most `limit` bytes: judged from Content-Length first, then while
 * reading, so that no more than `limit` bytes are ever buffered. Under @hono/node-server the
 * node request is read directly: its web-stream adapter and the concatenation of its pieces cost
 * a receiver of multi-MiB chunks more CPU than the SHA-256 of the body, and a small deposit a
 * tenth of its time. Past the limit the rest is left for the node server to discard once the 413
 * is sent.
 */
export async function readBody(
  c: Context,
  limit: number,
  options: ReadBodyOptions = {},
): Promise<Uint8Array> {
  const { pool, origin } = options;
  const length = requireDeclaredLength(c, limit, origin);
  const incoming = unreadNodeRequest(c);
  if (incoming) {
    if (length === undefined) return readUpTo(incoming, limit, origin);
    const into = pool?.take(length) ?? Buffer.allocUnsafe(length);
    return readExactly(incoming, into).catch((error: unknown) => {
      pool?.give(into);
      throw error;
    });
  }
  return readWebBody(c.req.raw, limit, origin);
}

/** Fills `into` from `body`, which must hold exactly its length (else 400). */
export function readExactly(body: Readable, into: Uint8Array): Promise<Uint8Array> {
  let filled = 0;
  return readPieces(body, (piece) => {
    if (filled + piece.byteLength > into.length) {
      throw badRequest("the request body is longer than its Content-Length");
    }
    into.set(piece, filled);
    filled += piece.byteLength;
  }).then(() => {
    if (filled !== into.length) throw endedEarly();
    return into;
  });
}

/** All of `body` when it holds at most `limit` bytes, else 413 as soon as it passes them. */
export async function readUpTo(
  body: Readable,
  limit: number,
  origin?: string,
): Promise<Uint8Array> {
  const pieces: Buffer[] = [];
  let size = 0;
  await readPieces(body, (piece) => {
    size += piece.byteLength;
    if (size > limit) throw tooLarge(limit, origin);
    pieces.push(piece);
  });
  return Buffer.concat(pieces, size);
}

/**
 * Hands each piece of `body` to `take` until the body ends; a throw of `take` stops reading and
 * rejects.
 */
function readPieces(body: Readable, take: (piece: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    // A client gone while the route awaited something else: no event is coming.
    if (body.destroyed) return reject(endedEarly());
    const settle = (outcome: () => void) => {
      body.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      outcome();
    };
    const onData = (piece: Buffer) => {
      try {
        take(piece);
      } catch (error) {
        // Read no further: the node server discards the rest once the answer is sent.
        body.pause();
        settle(() => reject(error));
      }
    };
    const onEnd = () => settle(resolve);
    const onError = (error: Error) => settle(() => reject(error));
    const onClose = () => settle(() => reject(endedEarly()));
    body.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/** The body of a request that did not come through the node server (app.request in tests). */
async function readWebBody(
  request: Request,
  limit: number,
  origin: string | undefined,
): Promise<Uint8Array> {
  const body = request.body;
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
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
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : concatBytes(...chunks);
}
