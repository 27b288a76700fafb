import { CanonicalError, decodeBase64, isFresh, signedBodyMessage } from "@svc/canonical";
import type { Context } from "hono";
import * as v from "valibot";
import { ApiError, badRequest } from "../errors.js";
import type { Services } from "../services.js";

/** Members every signed body carries (interface.md SignedPayload). */
export const signedPayloadEntries = {
  signedAt: v.pipe(
    v.number("signedAt must be an integer"),
    v.safeInteger("signedAt must be an integer"),
  ),
  signature: v.pipe(
    v.string("signature must be a string"),
    v.length(88, "signature must be 64 bytes of base64"),
  ),
};

/** Validates a parsed body against a route's schema; the first problem becomes a 400. */
export function parseBody<TSchema extends v.GenericSchema>(
  schema: TSchema,
  body: unknown,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, body, { abortEarly: true });
  if (!result.success) {
    const issue = result.issues[0];
    const field = issue ? v.getDotPath(issue) : null;
    throw badRequest(
      field ? `${field}: ${issue?.message}` : (issue?.message ?? "invalid request body"),
    );
  }
  return result.output;
}

/**
 * Checks the body's signature (D3: JCS of the body without `signature`, plus @method and the
 * request path exactly as sent). A signature that is not even well-formed base64 counts as bad.
 */
export function signatureValid(
  services: Services,
  c: Context,
  body: Record<string, unknown>,
  publicKey: Uint8Array,
): boolean {
  let signature: Uint8Array;
  try {
    signature = decodeBase64(String(body.signature), 64);
  } catch (error) {
    if (error instanceof CanonicalError) return false;
    throw error;
  }
  return services.verifier.verify(
    signature,
    signedBodyMessage(c.req.method, rawPath(c), body),
    publicKey,
  );
}

/** Throws the D3 stale-signature error unless signedAt is within +-5 minutes of server time. */
export function requireFresh(services: Services, signedAt: number, status: 401 | 409): void {
  if (!isFresh(signedAt, services.now())) {
    throw new ApiError(status, "SVC_STALE_SIGNATURE", "signedAt is outside the +-5 minute window");
  }
}

/** The request path as sent by the client, without query and without percent-decoding. */
export function rawPath(c: Context): string {
  const url = c.req.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return url.slice(start, query === -1 ? undefined : query);
}

/** A base64 member decoded to exactly `length` bytes, or a 400 with the given code. */
export function decodeKey(
  value: string,
  length: number,
  field: string,
  code: "SVC_INVALID_KEY" | "SVC_BAD_REQUEST" = "SVC_INVALID_KEY",
): Uint8Array {
  try {
    return decodeBase64(value, length);
  } catch (error) {
    if (error instanceof CanonicalError) {
      throw new ApiError(400, code, `${field} must be ${length} bytes of base64`);
    }
    throw error;
  }
}
