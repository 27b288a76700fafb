import { CanonicalError, decodeBase64, isSmallOrderPoint } from "@svc/canonical";
import * as v from "valibot";
import { badRequest, type ErrorCode, SvcError } from "./errors.js";

/** Validates a parsed body against a route's schema; the first problem becomes a 400 naming it. */
export function parseRequest<TSchema extends v.GenericSchema>(
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

/** A base64 member decoded to exactly `length` bytes, or a 400 with the given code. */
export function decodeKey(
  value: string,
  length: number,
  field: string,
  code: Extract<ErrorCode, "SVC_INVALID_KEY" | "SVC_BAD_REQUEST"> = "SVC_INVALID_KEY",
): Uint8Array {
  try {
    return decodeBase64(value, length);
  } catch (error) {
    if (error instanceof CanonicalError) {
      throw new SvcError(code, `${field} must be ${length} bytes of base64`);
    }
    throw error;
  }
}

/**
 * An Ed25519 public key a request binds (an identity, an inbox, a sender): 32 bytes of base64
 * that are not a point of small order, else 400 SVC_INVALID_KEY. Such a key signs for no secret:
 * signatures under it verify whoever made them, so binding one would let anyone act as it.
 */
export function decodeSigningKey(value: string, field: string): Uint8Array {
  const key = decodeKey(value, 32, field);
  if (isSmallOrderPoint(key)) {
    throw new SvcError("SVC_INVALID_KEY", `${field} is an Ed25519 point of small order`);
  }
  return key;
}

/**
 * What a refusal of untrusted input becomes on the wire: an SvcError as it is, a CanonicalError
 * as the 400 it stands for, anything else as an opaque 500.
 */
export function toSvcError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  if (error instanceof CanonicalError) {
    return error.code === "INVALID_ADDRESS"
      ? new SvcError("SVC_INVALID_ADDRESS", error.message)
      : new SvcError("SVC_BAD_REQUEST", error.message);
  }
  return new SvcError("SVC_INTERNAL", "internal error", { cause: error });
}
