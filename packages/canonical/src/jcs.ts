import { CanonicalError } from "./errors.js";

export interface CanonicalizeOptions {
  /**
   * D3: every number of a signed body is an integer with |n| <= 2^53-1 (default true). With false,
   * any finite number is serialized per RFC 8785 section 3.2.2.3.
   */
  integersOnly?: boolean;
}

/** Deep enough for any protocol body; bounds recursion on untrusted input. */
const MAX_DEPTH = 128;

// JSON.parse can produce lone surrogates ("\ud800"); in a `u` regex a valid pair is one code point.
const LONE_SURROGATE = /\p{Cs}/u;
// ES2024's String.prototype.isWellFormed answers the same natively, several times faster than the
// regex over a long string (a deposit's base64 ciphertext); the regex serves older engines.
const nativeWellFormed = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;
const wellFormed: (value: string) => boolean = nativeWellFormed
  ? (value) => nativeWellFormed.call(value)
  : (value) => !LONE_SURROGATE.test(value);

/** RFC 8785 JSON Canonicalization Scheme. */
export function canonicalize(value: unknown, options: CanonicalizeOptions = {}): string {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("options must be an object");
  }
  return serialize(value, options.integersOnly ?? true, 0);
}

function serialize(value: unknown, integersOnly: boolean, depth: number): string {
  switch (typeof value) {
    case "string":
      return serializeString(value);
    case "number":
      return serializeNumber(value, integersOnly);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      if (depth >= MAX_DEPTH) throw invalidValue(`nesting deeper than ${MAX_DEPTH}`);
      if (Array.isArray(value)) return serializeArray(value, integersOnly, depth + 1);
      return serializeObject(value, integersOnly, depth + 1);
    default:
      throw invalidValue(`${typeof value} is not a JSON value`);
  }
}

/**
 * RFC 8785 section 3.2.2.2 escapes exactly as ECMAScript JSON.stringify does for well-formed
 * strings: \b \t \n \f \r \" \\, other controls as lower-case \u00xx, everything else as is.
 */
function serializeString(value: string): string {
  if (!wellFormed(value)) throw invalidValue("string contains a lone surrogate");
  return JSON.stringify(value);
}

/** RFC 8785 section 3.2.2.3 is ECMAScript Number.prototype.toString, which String() applies. */
function serializeNumber(value: number, integersOnly: boolean): string {
  if (!Number.isFinite(value)) throw invalidValue(`${value} is not a JSON number`);
  if (integersOnly && !Number.isSafeInteger(value)) {
    throw new CanonicalError("INVALID_NUMBER", `${value} is not an integer within ±(2^53-1)`);
  }
  return String(value);
}

function serializeArray(value: unknown[], integersOnly: boolean, depth: number): string {
  let out = "[";
  for (let i = 0; i < value.length; i++) {
    if (i > 0) out += ",";
    out += serialize(value[i], integersOnly, depth);
  }
  return `${out}]`;
}

function serializeObject(value: object, integersOnly: boolean, depth: number): string {
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    throw invalidValue("only plain objects are JSON objects");
  }
  const record = value as Record<string, unknown>;
  // The default sort compares UTF-16 code units, which is the RFC 8785 section 3.2.3 order.
  const keys = Object.keys(record).sort();
  let out = "{";
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (i > 0) out += ",";
    out += `${serializeString(key)}:${serialize(record[key], integersOnly, depth)}`;
  }
  return `${out}}`;
}

function invalidValue(reason: string): CanonicalError {
  return new CanonicalError("INVALID_JSON_VALUE", `not canonicalizable: ${reason}`);
}
