import { encodeBase64 } from "./base64.js";
import { SignedNoteError } from "./errors.js";

/** An em dash (U+2014) and a space: how every signature line starts. */
export const SIGNATURE_PREFIX = "\u2014 ";

// ASCII control characters other than newline (C0 and DEL).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
export const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f]/;

export function malformed(message: string): SignedNoteError {
  return new SignedNoteError("NOTE_MALFORMED", message);
}

/** Text a note may carry: non-empty, ending in a newline, no ASCII control but newline. */
export function checkText(text: string): void {
  if (text === "" || !text.endsWith("\n")) throw malformed("the note text must end in a newline");
  if (CONTROL.test(text)) throw malformed("the note holds a control character");
  if (/\p{Cs}/u.test(text)) throw malformed("the note text is not valid Unicode");
}

/** `— <name> base64(key ID || signature)` and a newline. */
export function signatureLine(name: string, id: number, signature: Uint8Array): string {
  const bytes = new Uint8Array(4 + signature.length);
  new DataView(bytes.buffer).setUint32(0, id, false);
  bytes.set(signature, 4);
  return `${SIGNATURE_PREFIX}${name} ${encodeBase64(bytes)}\n`;
}
