import type { Context } from "hono";
import { ApiError, badRequest } from "../errors.js";

const tooLarge = (limit: number) =>
  new ApiError(413, "SVC_TOO_LARGE", `request body exceeds ${limit} bytes`);

/**
 * Reads a JSON object body of at most `limit` bytes. The size is judged from Content-Length
 * before reading and again while streaming, so an oversized body is never buffered or parsed.
 */
export async function readJsonBody(c: Context, limit: number): Promise<Record<string, unknown>> {
  const declared = c.req.header("content-length");
  if (declared !== undefined && (!/^\d+$/.test(declared) || Number(declared) > limit)) {
    throw /^\d+$/.test(declared) ? tooLarge(limit) : badRequest("invalid Content-Length");
  }
  const text = await readLimitedText(c.req.raw, limit);
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

async function readLimitedText(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
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
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw badRequest("request body is not valid UTF-8");
  }
}
