import { encodeBase64 } from "@svc/canonical";
import { checkpointText } from "../checkpoint.js";
import { KtVerifyError } from "../errors.js";
import type { SthSignatureVerifier } from "../signature.js";
import { KtVerifier } from "../verifier.js";
import type { WitnessPolicy } from "../witness-policy.js";
import { FakeLog, FakeWitness, key32 } from "./fake-log.js";

/** What the witness-policy tests share: three witnesses, a log they cosign, its bundles. */

export const NOW = 1_763_780_000_000;
export const SECONDS = NOW / 1000;
export const [w1, w2, w3] = ["w1.example", "w2.example", "w3.example"].map(
  (n) => new FakeWitness(n),
) as [FakeWitness, FakeWitness, FakeWitness];
export const stranger = new FakeWitness("stranger.example");

export function policyFor(log: FakeLog, changes: Partial<WitnessPolicy> = {}): WitnessPolicy {
  return {
    origin: log.origin,
    witnesses: [w1, w2, w3].map((w) => w.verifierKey),
    threshold: 2,
    ...changes,
  };
}

export function verifierFor(
  log: FakeLog,
  policy: WitnessPolicy | null = policyFor(log),
  options: { maxStaleMs?: number; signatureVerifier?: SthSignatureVerifier } = {},
) {
  return new KtVerifier({
    logPublicKey: log.publicKey,
    client: log.client(),
    now: () => NOW,
    ...(policy === null ? {} : { witnessPolicy: policy }),
    ...options,
  });
}

/** A log of one identity whose checkpoints w1 and w2 cosign. */
export function witnessedLog(): FakeLog {
  const log = new FakeLog(undefined, () => NOW);
  log.witnesses = [w1, w2];
  register(log, "alice", 1);
  return log;
}

export function register(log: FakeLog, address: string, n: number): void {
  log.append({
    kind: "identity",
    address,
    identitySigningKey: key32(n),
    identityDHKey: key32(n + 1),
    timestampMs: log.now(),
  });
}

/** alice's bundle answer, its ktProof's checkpoint replaced when `checkpoint` is given. */
export function bundle(log: FakeLog, ...checkpoint: [unknown?]): Record<string, unknown> {
  const ktProof = log.proofJson("alice");
  if (checkpoint.length > 0) ktProof.checkpoint = checkpoint[0];
  return {
    identitySigningKey: encodeBase64(key32(1)),
    identityDHKey: encodeBase64(key32(2)),
    signedPreKey: { keyId: 1, publicKey: encodeBase64(key32(9)), signature: "" },
    ktProof,
  };
}

/** The checkpoint text of `log`'s latest STH, signed by its operator, then these lines. */
export function note(
  log: FakeLog,
  lines: string[],
  text = checkpointText(log.origin, log.latestSth()),
) {
  return log.signCheckpoint(text) + lines.join("");
}

export async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (error instanceof KtVerifyError) return { code: error.code, message: error.message };
    throw error;
  }
  return { code: "accepted", message: "" };
}

export const codeOf = async (work: Promise<unknown>) => (await refusal(work)).code;
