import { ed25519 } from "@noble/curves/ed25519.js";
import { decodeBase64 } from "./base64.js";
import { cosignedMessage, MAX_TIMESTAMP } from "./cosignature.js";
import { SignedNoteError } from "./errors.js";
import {
  COSIGNATURE_V1_TYPE,
  formatKeyId,
  isValidKeyName,
  type Signer,
  type Verifier,
} from "./keys.js";
import { CONTROL, checkText, malformed, SIGNATURE_PREFIX, signatureLine } from "./lines.js";

/** The largest note `openNote` reads, in bytes (text and signature lines). */
export const MAX_NOTE_BYTES = 1 << 20;
/** The most signature lines a note may have (Go's note.Open refuses more). */
export const MAX_SIGNATURES = 100;

/** A signature by a trusted key that verified. */
export interface VerifiedSignature {
  readonly name: string;
  readonly keyId: number;
  /** The trusted key that verified it. */
  readonly key: Verifier;
  /** A cosignature's timestamp (POSIX seconds); absent for a plain Ed25519 signature. */
  readonly timestamp?: bigint;
}

/** A signature line by a key that is not among the trusted ones: reported, never trusted. */
export interface UnknownSignature {
  readonly name: string;
  readonly keyId: number;
  /** base64(key ID || signature) as the line holds it. */
  readonly signature: string;
}

export interface OpenedNote {
  /** The note's text, ending in a newline. */
  readonly text: string;
  /** Each trusted key's signature once, in the order of the note's lines. */
  readonly signatures: readonly VerifiedSignature[];
  /** Signatures by other keys (distinct lines), in order. */
  readonly unknown: readonly UnknownSignature[];
}

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Signs `text` (non-empty, ending in a newline, no control characters but newline) with each
 * Ed25519 signer and returns the note: the text, a blank line, one signature line per signer.
 */
export function signNote(text: string, signers: readonly Signer[]): string {
  checkText(text);
  if (signers.length > MAX_SIGNATURES) {
    throw new SignedNoteError("NOTE_TOO_MANY_SIGNATURES", "more than 100 signers");
  }
  const message = utf8.encode(text);
  let lines = "";
  for (const signer of signers) {
    if (!isValidKeyName(signer.name)) throw malformed("a signer's name is not a key name");
    lines += signatureLine(signer.name, signer.keyId, ed25519.sign(message, signer.seed));
  }
  return `${text}\n${lines}`;
}

function sameKey(a: Verifier, b: Verifier): boolean {
  return a.type === b.type && a.publicKey.every((byte, i) => byte === b.publicKey[i]);
}

/** Verifies one signature by a trusted key; the timestamp for a cosignature. */
function verify(
  key: Verifier,
  text: string,
  message: Uint8Array,
  signature: Uint8Array,
): { ok: boolean; timestamp?: bigint } {
  if (key.type === COSIGNATURE_V1_TYPE) {
    if (signature.length !== 72) return { ok: false };
    const timestamp = new DataView(signature.buffer, signature.byteOffset, 8).getBigUint64(0);
    if (timestamp > MAX_TIMESTAMP) return { ok: false };
    const ok = ed25519.verify(
      signature.subarray(8),
      cosignedMessage(text, timestamp),
      key.publicKey,
      { zip215: false },
    );
    return { ok, timestamp };
  }
  if (signature.length !== 64) return { ok: false };
  return { ok: ed25519.verify(signature, message, key.publicKey, { zip215: false }) };
}

/**
 * Opens a signed note (bytes, or a string taken as its UTF-8), verifying each signature by a
 * trusted key. Throws `SignedNoteError`: NOTE_MALFORMED for a note that does not parse,
 * NOTE_TOO_MANY_SIGNATURES, NOTE_INVALID_SIGNATURE when a trusted key's signature (same name and
 * key ID) does not verify, NOTE_AMBIGUOUS_KEY, and NOTE_UNVERIFIED when no trusted key signed.
 */
export function openNote(note: Uint8Array | string, verifiers: readonly Verifier[]): OpenedNote {
  const bytes = typeof note === "string" ? utf8.encode(note) : note;
  if (bytes.length > MAX_NOTE_BYTES) throw malformed("the note is larger than 1 MiB");
  let whole: string;
  try {
    whole = strictUtf8.decode(bytes);
  } catch {
    throw malformed("the note is not UTF-8");
  }
  if (CONTROL.test(whole)) throw malformed("the note holds a control character");
  const split = whole.lastIndexOf("\n\n");
  if (split < 0) throw malformed("the note has no blank line before its signatures");
  const text = whole.slice(0, split + 1);
  const block = whole.slice(split + 2);
  if (block === "" || !block.endsWith("\n")) {
    throw malformed("the signature lines must end in a newline");
  }
  const lines = block.slice(0, -1).split("\n");
  if (lines.length > MAX_SIGNATURES) {
    throw new SignedNoteError("NOTE_TOO_MANY_SIGNATURES", "more than 100 signature lines");
  }
  const message = utf8.encode(text);
  const signatures: VerifiedSignature[] = [];
  const unknown: UnknownSignature[] = [];
  const seenVerified = new Set<string>();
  const seenUnknown = new Set<string>();
  for (const line of lines) {
    if (!line.startsWith(SIGNATURE_PREFIX)) throw malformed("a signature line starts with '— '");
    const rest = line.slice(SIGNATURE_PREFIX.length);
    const space = rest.indexOf(" ");
    if (space < 0) throw malformed("a signature line is '— <name> <signature>'");
    const name = rest.slice(0, space);
    const encoded = rest.slice(space + 1);
    const decoded = decodeBase64(encoded);
    if (!isValidKeyName(name) || decoded === undefined || decoded.length < 5) {
      throw malformed("a signature line is '— <name> <base64 signature>'");
    }
    const id = new DataView(decoded.buffer, decoded.byteOffset, 4).getUint32(0, false);
    const signature = decoded.subarray(4);
    const matches = verifiers.filter((v) => v.name === name && v.keyId === id);
    const [key, ...others] = matches;
    if (key === undefined) {
      const seen = `${name} ${encoded}`;
      if (!seenUnknown.has(seen)) {
        seenUnknown.add(seen);
        unknown.push({ name, keyId: id, signature: encoded });
      }
      continue;
    }
    if (others.some((other) => !sameKey(key, other))) {
      throw new SignedNoteError("NOTE_AMBIGUOUS_KEY", `ambiguous key ${name}+${formatKeyId(id)}`);
    }
    const result = verify(key, text, message, signature);
    if (!result.ok) {
      throw new SignedNoteError(
        "NOTE_INVALID_SIGNATURE",
        `invalid signature for key ${name}+${formatKeyId(id)}`,
      );
    }
    const seen = `${name}+${formatKeyId(id)}`;
    if (seenVerified.has(seen)) continue;
    seenVerified.add(seen);
    signatures.push(
      result.timestamp === undefined
        ? { name, keyId: id, key }
        : { name, keyId: id, key, timestamp: result.timestamp },
    );
  }
  if (signatures.length === 0) {
    throw new SignedNoteError("NOTE_UNVERIFIED", "the note has no signature by a trusted key");
  }
  return { text, signatures, unknown };
}
