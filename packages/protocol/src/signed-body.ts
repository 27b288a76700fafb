import { CanonicalError, canonicalize, ed25519Sign, encodeBase64 } from "@svc/canonical";

const utf8 = new TextEncoder();

/**
 * D3: the bytes an Ed25519 signature of a signed body covers: JCS of the body without
 * `signature`, plus `@method` and `@path` binding it to one request.
 */
export function signedBodyMessage(
  method: string,
  path: string,
  body: Record<string, unknown>,
): Uint8Array {
  if (typeof method !== "string" || method.length === 0) {
    throw new TypeError("method must be a non-empty string");
  }
  if (typeof path !== "string" || !path.startsWith("/") || path.includes("?")) {
    throw new RangeError("path must start with / and carry no query string");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new TypeError("body must be a JSON object");
  }
  const signed: Record<string, unknown> = { "@method": method.toUpperCase(), "@path": path };
  for (const name of Object.keys(body)) {
    if (name.startsWith("@")) {
      throw new CanonicalError(
        "RESERVED_MEMBER",
        `body member ${JSON.stringify(name)} is reserved`,
      );
    }
    if (name !== "signature") signed[name] = body[name];
  }
  return utf8.encode(canonicalize(signed));
}

/** Base64 Ed25519 signature of a signed body (client and test helper). */
export function signBody(
  method: string,
  path: string,
  body: Record<string, unknown>,
  seed: Uint8Array,
): string {
  return encodeBase64(ed25519Sign(signedBodyMessage(method, path, body), seed));
}

/** `fields` plus their `signature`, ready to send. */
export function signedBody<T extends Record<string, unknown>>(
  method: string,
  path: string,
  fields: T,
  seed: Uint8Array,
): T & { signature: string } {
  return { ...fields, signature: signBody(method, path, fields, seed) };
}
