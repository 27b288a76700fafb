import type { Ed25519Verifier } from "@svc/canonical";
import type { SvcClient } from "@svc/client";
import { createLogger, type Logger } from "@svc/http";
import { serverEd25519Verifier } from "@svc/http/ed25519";
import { LIMITS } from "@svc/protocol";
import { CHUNK_OVERHEAD_BYTES, type ChunkCipher } from "@svc/transfer-lanes";
import { defaultChunkCipher } from "../cipher/default-chunk-cipher.js";
import type { TransferStore } from "../store/transfer-store.js";
import { ARRIVAL_GRACE_MS } from "./lane-arrivals.js";

/** A file whose every byte arrived and matched the start message's SHA-256. */
export interface ReceivedFile {
  streamId: string;
  sender: string;
  /** The safe base name it was asked to be saved under. */
  name: string;
  /** Where it was saved: `<dir>/<name>`, or `<dir>/<stem> (n).<ext>` when that was taken. */
  path: string;
  size: number;
  sha256: string;
}

export interface TransferReceiverOptions {
  /**
   * The receiving identity: it opens control envelopes and knows senders' signing keys (fetched
   * from the directory once, then kept in its state); /v1/transfer/health names its address.
   */
  client: Pick<SvcClient, "open" | "peerIdentity" | "whoami">;
  store: TransferStore;
  /** Finished files land here; partial data waits in `<dir>/.partial`. */
  dir: string;
  /** Largest chunk request body; default LIMITS.maxChunkBytes (16 MiB of data plus 53 bytes). */
  maxChunkBytes?: number;
  /** Largest file a start may announce; default 64 GiB. */
  maxStreamBytes?: number;
  /** Most lanes a start may ask for; default 64. */
  maxLanes?: number;
  /**
   * How long a chunk that came before the lane's previous one waits for it, in ms (a sender
   * keeps two chunks of a lane in flight, and they may arrive in either order); default 2000.
   */
  arrivalGraceMs?: number;
  /** Default libsodium's in-place cipher where sodium-native loads, else nodeChunkCipher. */
  cipher?: ChunkCipher;
  /** Default @svc/http's server verifier (libsodium, else node:crypto). */
  verifier?: Ed25519Verifier;
  /** Clock of the ±5 minute signedAt window; default Date.now. */
  now?: () => number;
  /** Told of each finished file; an error it throws is logged, and the finish still succeeds. */
  onFinished?: (file: ReceivedFile) => void | Promise<void>;
  /** Default silent. */
  logger?: Logger;
}

export type ResolvedReceiverOptions = Required<Omit<TransferReceiverOptions, "onFinished">> &
  Pick<TransferReceiverOptions, "onFinished">;

export const DEFAULT_MAX_STREAM_BYTES = 64 * 1024 ** 3;
export const DEFAULT_MAX_LANES = 64;
/** A chunk is one buffer in memory: 1 GiB is far past any useful size. */
const MAX_CHUNK_BYTES = 1024 ** 3;

export function resolveReceiverOptions(options: TransferReceiverOptions): ResolvedReceiverOptions {
  const resolved: ResolvedReceiverOptions = {
    ...options,
    maxChunkBytes: options.maxChunkBytes ?? LIMITS.maxChunkBytes,
    maxStreamBytes: options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES,
    maxLanes: options.maxLanes ?? DEFAULT_MAX_LANES,
    arrivalGraceMs: options.arrivalGraceMs ?? ARRIVAL_GRACE_MS,
    cipher: options.cipher ?? defaultChunkCipher(),
    verifier: options.verifier ?? serverEd25519Verifier(),
    now: options.now ?? Date.now,
    logger: options.logger ?? createLogger("silent"),
  };
  for (const name of ["maxChunkBytes", "maxStreamBytes", "maxLanes", "arrivalGraceMs"] as const) {
    if (!Number.isSafeInteger(resolved[name]) || resolved[name] < 1) {
      throw new RangeError(`${name} must be a positive integer`);
    }
  }
  if (resolved.maxChunkBytes <= CHUNK_OVERHEAD_BYTES || resolved.maxChunkBytes > MAX_CHUNK_BYTES) {
    throw new RangeError(
      `maxChunkBytes must be in ${CHUNK_OVERHEAD_BYTES + 1}..${MAX_CHUNK_BYTES}`,
    );
  }
  return resolved;
}
