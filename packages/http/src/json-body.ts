import { badRequest } from "@svc/protocol";
import type { Context } from "hono";
import { readBody } from "./body.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

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
  const bytes = await readBody(c, limit, { origin });
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
