import { decodeBase64 } from "@svc/canonical";
import { KtVerifyError } from "./errors.js";

/** Readers of untrusted JSON members: each failure is KtVerifyError KT_MALFORMED naming the member. */

export function requireObject(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw malformed(`${where} must be an object`);
  }
  return value as Record<string, unknown>;
}

export function fieldCount(object: Record<string, unknown>, name: string, where: string): number {
  const value = object[name];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw malformed(`${where}.${name} must be a non-negative integer`);
  }
  return value;
}

export function fieldBytes(
  object: Record<string, unknown>,
  name: string,
  where: string,
  length?: number,
): Uint8Array {
  return base64Value(object[name], `${where}.${name}`, length);
}

/** An array of base64 byte strings, each of `length` bytes when given. */
export function fieldBytesArray(
  object: Record<string, unknown>,
  name: string,
  where: string,
  length?: number,
): Uint8Array[] {
  const value = object[name];
  if (!Array.isArray(value)) throw malformed(`${where}.${name} must be an array`);
  return value.map((item, i) => base64Value(item, `${where}.${name}[${i}]`, length));
}

export function fieldHashes(
  object: Record<string, unknown>,
  name: string,
  where: string,
): Uint8Array[] {
  return fieldBytesArray(object, name, where, 32);
}

function base64Value(value: unknown, where: string, length?: number): Uint8Array {
  if (typeof value !== "string") throw malformed(`${where} must be a base64 string`);
  try {
    return decodeBase64(value, length);
  } catch {
    throw malformed(`${where} must be base64${length === undefined ? "" : ` of ${length} bytes`}`);
  }
}

export function malformed(message: string): KtVerifyError {
  return new KtVerifyError("KT_MALFORMED", message);
}
