import { badRequest, SvcError } from "../errors.js";
import { parseRequest } from "../parse.js";
import { ControlMessage } from "./schemas.js";

const utf8 = new TextEncoder();
// fatal: invalid UTF-8 is refused, not replaced; ignoreBOM keeps a BOM, which JSON then refuses.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The plaintext sealed in a control message's 0x02 ratchet envelope: UTF-8 JSON. */
export function encodeControlMessage(message: ControlMessage): Uint8Array {
  return utf8.encode(JSON.stringify(message));
}

/** A decrypted control plaintext; anything but a valid ControlMessage is a 400 naming why. */
export function decodeControlMessage(bytes: Uint8Array): ControlMessage {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw badRequest("control message is not UTF-8");
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw badRequest("control message is not JSON");
  }
  try {
    return parseRequest(ControlMessage, json);
  } catch (error) {
    if (error instanceof SvcError) throw badRequest(`control message: ${error.message}`);
    throw error;
  }
}
