import type { Ed25519Verifier } from "@svc/canonical";
import type { SvcClient } from "@svc/client";
import { serverEd25519Verifier } from "@svc/http/ed25519";
import { createLogger, type Logger } from "@svc/node-kit";
import { LIMITS } from "@svc/protocol";
import { CHUNK_OVERHEAD_BYTES, type ChunkCipher } from "@svc/protocol/transfer";
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
  /** Largest file a start may announce (413 above); default DEFAULT_MAX_STREAM_BYTES, 64 GiB. */
  maxStreamBytes?: number;
  /**
   * Unfinished (active or paused) streams one sender may have at once; a start beyond is 429
   * SVC_TOO_MANY_STREAMS. Default 16.
   */
  maxStreamsPerSender?: number;
  /**
   * Bytes the unfinished streams of one sender may reserve together, each its whole announced
   * size from its start on; a start beyond is 507 SVC_INSUFFICIENT_STORAGE (413 when it alone is
   * more). Default 64 GiB.
   */
  maxReservedBytesPerSender?: number;
  /** The same for the unfinished streams of every sender together; default 256 GiB. */
  maxReservedBytes?: number;
  /**
   * How long an unfinished stream may go without an accepted chunk or control message: then it
   * expires, its partial file and its state removed (a sender resuming it finds none, 404).
   * Checked every minute (or every partialTtlMs if shorter) and before a start is refused for
   * room. Default 24 hours.
   */
  partialTtlMs?: number;
  /** Most lanes a start may ask for; default 64. */
  maxLanes?: number;
  /**
   * How long a chunk that came before the lane's previous one waits for it, in ms (a sender
   * keeps two chunks of a lane in flight, and they may arrive in either order); default 2000.
   */
  arrivalGraceMs?: number;
  /**
   * The ChaCha20-Poly1305 of the streams that use it (every version 1 stream); default
   * libsodium's in-place cipher where sodium-native loads, else nodeChunkCipher.
   */
  cipher?: ChunkCipher;
  /** The AES-256-GCM of the version 2 streams that name it; default nodeAesGcmChunkCipher. */
  aesGcmCipher?: ChunkCipher;
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

const GIB = 1024 ** 3;
export const DEFAULT_MAX_STREAM_BYTES = 64 * GIB;
export const DEFAULT_MAX_STREAMS_PER_SENDER = 16;
export const DEFAULT_MAX_RESERVED_BYTES_PER_SENDER = 64 * GIB;
export const DEFAULT_MAX_RESERVED_BYTES = 256 * GIB;
export const DEFAULT_PARTIAL_TTL_MS = 24 * 60 * 60_000;
export const DEFAULT_MAX_LANES = 64;
/** A chunk is one buffer in memory: 1 GiB is far past any useful size. */
const MAX_CHUNK_BYTES = 1024 ** 3;

export function resolveReceiverOptions(options: TransferReceiverOptions): ResolvedReceiverOptions {
  const resolved: ResolvedReceiverOptions = {
    ...options,
    maxChunkBytes: options.maxChunkBytes ?? LIMITS.maxChunkBytes,
    maxStreamBytes: options.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES,
    maxStreamsPerSender: options.maxStreamsPerSender ?? DEFAULT_MAX_STREAMS_PER_SENDER,
    maxReservedBytesPerSender:
      options.maxReservedBytesPerSender ?? DEFAULT_MAX_RESERVED_BYTES_PER_SENDER,
    maxReservedBytes: options.maxReservedBytes ?? DEFAULT_MAX_RESERVED_BYTES,
    partialTtlMs: options.partialTtlMs ?? DEFAULT_PARTIAL_TTL_MS,
    maxLanes: options.maxLanes ?? DEFAULT_MAX_LANES,
    arrivalGraceMs: options.arrivalGraceMs ?? ARRIVAL_GRACE_MS,
    cipher: options.cipher ?? defaultChunkCipher("chacha20-poly1305"),
    aesGcmCipher: options.aesGcmCipher ?? defaultChunkCipher("aes-256-gcm"),
    verifier: options.verifier ?? serverEd25519Verifier(),
    now: options.now ?? Date.now,
    logger: options.logger ?? createLogger("silent"),
  };
  const positive = [
    "maxChunkBytes",
    "maxStreamBytes",
    "maxStreamsPerSender",
    "maxReservedBytesPerSender",
    "maxReservedBytes",
    "partialTtlMs",
    "maxLanes",
    "arrivalGraceMs",
  ] as const;
  for (const name of positive) {
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
