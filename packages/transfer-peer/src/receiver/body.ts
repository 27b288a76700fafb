import { concatBytes } from "@svc/canonical";
import { badRequest, SvcError } from "@svc/protocol";
import type { Context } from "hono";

const tooLarge = (limit: number) =>
  new SvcError("SVC_TOO_LARGE", `request body exceeds ${limit} bytes`);

/** 413 when Content-Length announces more than `limit` bytes: judged before reading anything. */
export function requireDeclaredLength(c: Context, limit: number): void {
  const declared = c.req.header("content-length");
  if (declared === undefined) return;
  if (!/^\d+$/.test(declared)) throw badRequest("invalid Content-Length");
  if (Number(declared) > limit) throw tooLarge(limit);
}

/**
 * The binary body, of at most `limit` bytes: judged from Content-Length first, then while
 * reading, so that no more than `limit` bytes are ever buffered. (@svc/http's readJsonBody does
 * the same for JSON bodies.)
 */
export async function readBody(c: Context, limit: number): Promise<Uint8Array> {
  requireDeclaredLength(c, limit);
  const body = c.req.raw.body;
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
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : concatBytes(...chunks);
}
