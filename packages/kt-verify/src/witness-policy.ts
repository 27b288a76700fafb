import {
  COSIGNATURE_V1_TYPE,
  parseVerifierKey,
  SignedNoteError,
  type Verifier,
} from "@svc/signed-note";
import { checkOrigin } from "./checkpoint.js";

/**
 * Which witnesses must have cosigned a tree head before a `KtVerifier` trusts it: at least
 * `threshold` distinct ones of `witnesses`, each cosignature at most `maxAgeMs` old. Against a
 * split view: a log that shows some clients another tree than the one witnesses saw needs the
 * witnesses to cosign that one too.
 */
export interface WitnessPolicy {
  /** The log's origin: its checkpoints' first line and the key name the operator signs under. */
  readonly origin: string;
  /**
   * The witnesses' C2SP verifier keys, of type 0x04 (cosignature/v1), distinct names:
   * `<name>+<key ID, 8 hex digits>+<base64(0x04 || Ed25519 public key)>`.
   */
  readonly witnesses: readonly string[];
  /** How many distinct witnesses must have cosigned: 1 to `witnesses.length`. */
  readonly threshold: number;
  /** How old a cosignature may be, in ms; default the verifier's `maxStaleMs`. */
  readonly maxAgeMs?: number;
}

/** A {@link WitnessPolicy} checked, its keys parsed. */
export interface ParsedWitnessPolicy {
  readonly origin: string;
  readonly witnesses: readonly Verifier[];
  readonly threshold: number;
  readonly maxAgeMs: number | undefined;
}

/**
 * Checks a witness policy as `KtVerifier` does, naming the bad member under `name` with a
 * TypeError or RangeError: `origin` a key name, each witness a verifier key of type 0x04 and
 * the names distinct, `threshold` an integer from 1 to the number of witnesses, `maxAgeMs` a
 * non-negative integer.
 */
export function parseWitnessPolicy(
  policy: WitnessPolicy,
  name = "witnessPolicy",
): ParsedWitnessPolicy {
  if (typeof policy !== "object" || policy === null) {
    throw new TypeError(`${name} must be an object`);
  }
  checkOrigin(policy.origin, `${name}.origin`);
  if (!Array.isArray(policy.witnesses)) {
    throw new TypeError(`${name}.witnesses must be an array of verifier keys`);
  }
  const witnesses = policy.witnesses.map((key: unknown, i) =>
    witnessKey(key, `${name}.witnesses[${i}]`),
  );
  const names = new Set<string>();
  for (const [i, witness] of witnesses.entries()) {
    if (names.has(witness.name)) {
      throw new RangeError(`${name}.witnesses[${i}] repeats the witness name ${witness.name}`);
    }
    names.add(witness.name);
  }
  const { threshold, maxAgeMs } = policy;
  if (!Number.isSafeInteger(threshold) || threshold < 1 || threshold > witnesses.length) {
    throw new RangeError(
      `${name}.threshold must be an integer from 1 to the number of witnesses (${witnesses.length})`,
    );
  }
  if (maxAgeMs !== undefined && (!Number.isSafeInteger(maxAgeMs) || maxAgeMs < 0)) {
    throw new RangeError(`${name}.maxAgeMs must be a non-negative integer`);
  }
  return { origin: policy.origin, witnesses, threshold, maxAgeMs };
}

function witnessKey(key: unknown, name: string): Verifier {
  if (typeof key !== "string") throw new TypeError(`${name} must be a verifier key string`);
  let verifier: Verifier;
  try {
    verifier = parseVerifierKey(key);
  } catch (error) {
    if (!(error instanceof SignedNoteError)) throw error;
    throw new RangeError(`${name} is not a verifier key: ${error.message}`);
  }
  if (verifier.type !== COSIGNATURE_V1_TYPE) {
    throw new RangeError(`${name} must be a cosignature/v1 key (type 0x04)`);
  }
  return verifier;
}
