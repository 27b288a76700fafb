import { MemoryTree } from "@svc/merkle";
import {
  formatCheckpoint,
  formatSignerKey,
  formatVerifierKey,
  parseSignerKey,
  parseVerifierKey,
  type Signer,
  signNote,
  type Verifier,
} from "@svc/signed-note";
import { formatAddCheckpoint } from "../add-checkpoint.js";

const utf8 = new TextEncoder();

export function testSigner(name: string, fill: number): Signer {
  return parseSignerKey(formatSignerKey(name, new Uint8Array(32).fill(fill)));
}

/**
 * A log for the tests: a real Merkle tree (@svc/merkle's MemoryTree) of `leaves` leaves whose
 * contents depend on `variant` (two variants of one origin are a split view), and its key.
 */
export function testLog(
  options: { origin?: string; leaves?: number; variant?: string; keyFill?: number } = {},
) {
  const origin = options.origin ?? "log.example/kt";
  const signer = testSigner(origin, options.keyFill ?? 1);
  const verifier: Verifier = parseVerifierKey(formatVerifierKey(origin, signer.publicKey));
  const tree = new MemoryTree();
  for (let i = 0; i < (options.leaves ?? 40); i++) {
    tree.append(utf8.encode(`${options.variant ?? "leaf"} ${i}`));
  }
  const checkpointText = (size: number) =>
    formatCheckpoint({ origin, size, rootHash: tree.root(size) });
  const checkpoint = (size: number, signers: readonly Signer[] = [signer]) =>
    signNote(checkpointText(size), signers);
  const proof = (from: number, to: number) => (from === 0 ? [] : tree.consistencyProof(from, to));
  return {
    origin,
    signer,
    verifier,
    tree,
    checkpointText,
    checkpoint,
    proof,
    /** An add-checkpoint body from `oldSize` to `size` with the right proof. */
    body: (oldSize: number, size: number) =>
      formatAddCheckpoint({ oldSize, proof: proof(oldSize, size), checkpoint: checkpoint(size) }),
  };
}
