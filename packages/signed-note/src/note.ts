import { ed25519 } from "@noble/curves/ed25519.js";
import { decodeBase64 } from "./base64.js";
import { cosignedMessage, MAX_TIMESTAMP } from "./cosignature.js";
import { SignedNoteError } from "./errors.js";
import {
  COSIGNATURE_V1_TYPE,
  formatKeyId,
  isValidKeyName,
  type KeyType,
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

/** One signature line of a note, well formed but not verified. */
export interface NoteSignatureLine {
  readonly name: string;
  readonly keyId: number;
  /** The bytes after the key ID: 64 for an Ed25519 signature, 72 for a cosignature/v1. */
  readonly signature: Uint8Array;
  /** base64(key ID || signature) as the line holds it. */
  readonly encoded: string;
}

/** A note split into its text and signature lines, its layout checked and nothing verified. */
export interface ParsedNote {
  /** The note's text, ending in a newline. */
  readonly text: string;
  readonly lines: readonly NoteSignatureLine[];
}

/** What an Ed25519 signature of a line covers, once its key's type is known. */
export interface SignedMessage {
  /** The signed bytes: the text's UTF-8 (type 0x01), or the cosigned message (type 0x04). */
  readonly message: Uint8Array;
  /** The 64-byte Ed25519 signature. */
  readonly signature: Uint8Array;
  /** A cosignature's timestamp (POSIX seconds). */
  readonly timestamp?: bigint;
}

/** One Ed25519 verification (RFC 8032); false, never a throw, for a bad signature. */
export type Ed25519Verify = (
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: Uint8Array,
) => boolean | Promise<boolean>;

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
    const signature = signer.sign ? signer.sign(message) : ed25519.sign(message, signer.seed);
    lines += signatureLine(signer.name, signer.keyId, signature);
  }
  return `${text}\n${lines}`;
}

/**
 * Opens a signed note (bytes, or a string taken as its UTF-8), verifying each signature by a
 * trusted key with @noble/curves' Ed25519 (RFC 8032, strict). Throws `SignedNoteError`:
 * NOTE_MALFORMED for a note that does not parse, NOTE_TOO_MANY_SIGNATURES,
 * NOTE_INVALID_SIGNATURE when a trusted key's signature (same name and key ID) does not verify,
 * NOTE_AMBIGUOUS_KEY, and NOTE_UNVERIFIED when no trusted key signed.
 */
export function openNote(note: Uint8Array | string, verifiers: readonly Verifier[]): OpenedNote {
  const parsed = parseNote(note);
  const steps = planChecks(parsed, verifiers);
  return settle(
    parsed.text,
    steps,
    steps.map((step) => step.kind === "trusted" && nobleVerify(step)),
  );
}

/**
 * {@link openNote} with another Ed25519 verifier (WebCrypto, say): the same parsing, the same
 * rules, the same errors. Every trusted key's line is verified, concurrently.
 */
export async function openNoteAsync(
  note: Uint8Array | string,
  verifiers: readonly Verifier[],
  verify: Ed25519Verify,
): Promise<OpenedNote> {
  const parsed = parseNote(note);
  const steps = planChecks(parsed, verifiers);
  const results = await Promise.all(
    steps.map(async (step) => {
      if (step.kind !== "trusted" || step.signed === undefined) return false;
      const { signature, message } = step.signed;
      return (await verify(signature, message, step.key.publicKey)) === true;
    }),
  );
  return settle(parsed.text, steps, results);
}

/**
 * Splits a note (bytes, or a string taken as its UTF-8) into its text and signature lines and
 * checks its layout as {@link openNote} does, verifying nothing: NOTE_MALFORMED (over 1 MiB, not
 * UTF-8, an ASCII control character but newline, no blank line before the signatures, a line
 * that is not `— <name> <base64>` with at least 5 bytes) or NOTE_TOO_MANY_SIGNATURES.
 */
export function parseNote(note: Uint8Array | string): ParsedNote {
  if (typeof note !== "string" && !(note instanceof Uint8Array)) {
    throw malformed("a note is a string or bytes");
  }
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
  const rawLines = block.slice(0, -1).split("\n");
  if (rawLines.length > MAX_SIGNATURES) {
    throw new SignedNoteError("NOTE_TOO_MANY_SIGNATURES", "more than 100 signature lines");
  }
  return { text, lines: rawLines.map(parseSignatureLine) };
}

/**
 * What a line's signature bytes sign for a key of `type`: the text for an Ed25519 key (0x01,
 * 64 bytes), `cosignature/v1\ntime <t>\n` and the text for a cosigner (0x04, an 8-byte
 * big-endian timestamp up to 2^63 - 1 and 64 bytes). Undefined when the bytes cannot be a
 * signature of that type: such a line by a trusted key does not verify.
 */
export function signedMessage(
  type: KeyType,
  text: string,
  signature: Uint8Array,
): SignedMessage | undefined {
  if (type === COSIGNATURE_V1_TYPE) {
    if (signature.length !== 72) return undefined;
    const timestamp = new DataView(signature.buffer, signature.byteOffset, 8).getBigUint64(0);
    if (timestamp > MAX_TIMESTAMP) return undefined;
    return {
      message: cosignedMessage(text, timestamp),
      signature: signature.subarray(8),
      timestamp,
    };
  }
  if (signature.length !== 64) return undefined;
  return { message: utf8.encode(text), signature };
}

function parseSignatureLine(line: string): NoteSignatureLine {
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
  const keyId = new DataView(decoded.buffer, decoded.byteOffset, 4).getUint32(0, false);
  return { name, keyId, signature: decoded.subarray(4), encoded };
}

/** What to do with each line, in order: report it, verify it, or refuse an ambiguous key. */
type Step =
  | { kind: "unknown"; line: NoteSignatureLine }
  | { kind: "ambiguous"; line: NoteSignatureLine }
  | { kind: "trusted"; line: NoteSignatureLine; key: Verifier; signed: SignedMessage | undefined };

function planChecks(parsed: ParsedNote, verifiers: readonly Verifier[]): Step[] {
  return parsed.lines.map((line): Step => {
    const [key, ...others] = verifiers.filter(
      (v) => v.name === line.name && v.keyId === line.keyId,
    );
    if (key === undefined) return { kind: "unknown", line };
    if (others.some((other) => !sameKey(key, other))) return { kind: "ambiguous", line };
    return {
      kind: "trusted",
      line,
      key,
      signed: signedMessage(key.type, parsed.text, line.signature),
    };
  });
}

function nobleVerify(step: Extract<Step, { kind: "trusted" }>): boolean {
  if (step.signed === undefined) return false;
  const { signature, message } = step.signed;
  return ed25519.verify(signature, message, step.key.publicKey, { zip215: false });
}

/** The opened note once each trusted line's signature is checked (`verified`, by index). */
function settle(text: string, steps: readonly Step[], verified: readonly boolean[]): OpenedNote {
  const signatures: VerifiedSignature[] = [];
  const unknown: UnknownSignature[] = [];
  const seenVerified = new Set<string>();
  const seenUnknown = new Set<string>();
  for (const [i, step] of steps.entries()) {
    const { name, keyId, encoded } = step.line;
    const id = `${name}+${formatKeyId(keyId)}`;
    if (step.kind === "unknown") {
      const seen = `${name} ${encoded}`;
      if (!seenUnknown.has(seen)) {
        seenUnknown.add(seen);
        unknown.push({ name, keyId, signature: encoded });
      }
      continue;
    }
    if (step.kind === "ambiguous") {
      throw new SignedNoteError("NOTE_AMBIGUOUS_KEY", `ambiguous key ${id}`);
    }
    if (verified[i] !== true) {
      throw new SignedNoteError("NOTE_INVALID_SIGNATURE", `invalid signature for key ${id}`);
    }
    if (seenVerified.has(id)) continue;
    seenVerified.add(id);
    const timestamp = step.signed?.timestamp;
    signatures.push(
      timestamp === undefined
        ? { name, keyId, key: step.key }
        : { name, keyId, key: step.key, timestamp },
    );
  }
  if (signatures.length === 0) {
    throw new SignedNoteError("NOTE_UNVERIFIED", "the note has no signature by a trusted key");
  }
  return { text, signatures, unknown };
}

function sameKey(a: Verifier, b: Verifier): boolean {
  return a.type === b.type && a.publicKey.every((byte, i) => byte === b.publicKey[i]);
}
