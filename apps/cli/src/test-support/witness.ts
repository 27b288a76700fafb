import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryTree } from "@svc/merkle";
import {
  formatCheckpoint,
  formatSignerKey,
  formatVerifierKey,
  parseSignerKey,
  signNote,
} from "@svc/signed-note";

export type Closer = () => Promise<void>;

/** A log for the witness tests: a real Merkle tree of `leaves` leaves, and its key. */
export function testLog(variant = "leaf", leaves = 30) {
  const origin = "log.example/kt";
  const signer = parseSignerKey(formatSignerKey(origin, new Uint8Array(32).fill(1)));
  const tree = new MemoryTree();
  for (let i = 0; i < leaves; i++) tree.append(new TextEncoder().encode(`${variant} ${i}`));
  return {
    origin,
    /** Its verifier key string, as --log takes it. */
    key: formatVerifierKey(origin, signer.publicKey),
    tree,
    checkpoint: (size: number) =>
      signNote(formatCheckpoint({ origin, size, rootHash: tree.root(size) }), [signer]),
    proof: (from: number, to: number) => (from === 0 ? [] : tree.consistencyProof(from, to)),
  };
}

/** A new temporary directory, removed by the closer pushed onto `closers`. */
export async function tempDir(closers: Closer[], prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  closers.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
