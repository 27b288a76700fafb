import { badRequest } from "@svc/protocol";

/** Room left under the usual 255-byte name limit for a " (12345)" that avoids a clash. */
export const MAX_NAME_BYTES = 240;

const utf8 = new TextEncoder();
// Control characters, lone surrogates, line and paragraph separators, and the bidirectional
// controls that can make "gpj.exe" read as "exe.jpg".
const CONTROL = /[\p{Cc}\p{Cs}\p{Zl}\p{Zp}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The sender's file name reduced to a base name that cannot leave the receiving directory or
 * hide in it: the part after the last `/` or `\`, without control characters (see CONTROL) or
 * leading dots or spaces. A name with nothing left, or longer than MAX_NAME_BYTES, is a 400.
 */
export function safeFileName(name: string): string {
  const base = name.normalize("NFC").split(/[/\\]/).at(-1) ?? "";
  const safe = base
    .replace(CONTROL, "")
    .replace(/^[.\s]+/, "")
    .trimEnd();
  if (safe === "") throw badRequest("name has no usable file name in it");
  if (utf8.encode(safe).length > MAX_NAME_BYTES) {
    throw badRequest(`name is longer than ${MAX_NAME_BYTES} bytes`);
  }
  return safe;
}

/** The name to try for a saved file at each attempt: `name`, then `stem (1).ext`, ... */
export function candidateName(name: string, attempt: number): string {
  if (attempt === 0) return name;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? `${name.slice(0, dot)} (${attempt})${name.slice(dot)}` : `${name} (${attempt})`;
}
