import { CanonicalError, normalizeAddress } from "@svc/canonical";
import type { SvcClient } from "@svc/client";
import { LIMITS } from "@svc/protocol";
import {
  CHUNK_AEADS,
  CHUNK_OVERHEAD_BYTES,
  type ChunkAead,
  isStreamId,
  type TransferVersion,
} from "@svc/protocol/transfer";
import { DEFAULT_RETRY, type RetryPolicy } from "./retry.js";

/**
 * What continues a stream: its id and key, and the lanes and chunkBytes it was started with,
 * which the receiver plans its chunks by. The `started` event gives it; SendJournal keeps it.
 */
export interface ResumeInfo {
  streamId: string;
  /**
   * The stream's 32-byte key: a version 1 stream's, kept for its life; a version 2 stream's
   * latest (a resumed version 2 stream takes a fresh one).
   */
  key: Uint8Array;
  lanes: number;
  chunkBytes: number;
  /** The transfer wire version the stream was started with; absent: 1. */
  version?: TransferVersion | undefined;
  /**
   * A version 1 stream's file SHA-256 when it started: another file is not resumed. A version 2
   * stream has none (its finish names the SHA-256 of the file as sent).
   */
  sha256?: string | undefined;
  /** A version 2 stream's chunk AEAD (absent: AES-256-GCM); version 1's is ChaCha20-Poly1305. */
  cipher?: ChunkAead | undefined;
  /**
   * A version 2 stream's file size when it started: a file of another size is not resumed (a
   * changed file of the same size is found by the receiver at the finish).
   */
  size?: number | undefined;
}

export interface SendOptions {
  /** The sender's identity: it signs every request and seals the control messages. */
  client: SvcClient;
  /** The address of the receiver's identity. */
  to: string;
  /** Base URL of the receiver's HTTP server, e.g. http://10.0.0.2:8787. */
  peer: string;
  /** Chunks in flight at once, one per lane (default 4; a resumed stream keeps its own). */
  lanes?: number;
  /** Data bytes per chunk (default 4 MiB, at most 16 MiB, the receiver's default limit). */
  chunkBytes?: number;
  /** The name the receiver is told (default: the file's base name; required for a stream). */
  name?: string;
  /** Continues this stream with its own lanes and chunkBytes (other values beside it: RangeError). */
  resume?: ResumeInfo | undefined;
  /** Sends through this fetch instead of node:http (slower; for proxies and tests). */
  fetch?: typeof fetch;
  /** Stops the send without telling the receiver, so that it can be resumed. */
  signal?: AbortSignal;
  retry?: Partial<RetryPolicy>;
  /** How long one request may go unanswered before it counts as a network error (default 120 s). */
  timeoutMs?: number;
}

export interface SendSettings {
  client: SvcClient;
  to: string;
  peer: string;
  lanes: number;
  chunkBytes: number;
  name: string | undefined;
  resume: ResumeInfo | undefined;
  fetch: typeof fetch | undefined;
  signal: AbortSignal | undefined;
  retry: RetryPolicy;
  timeoutMs: number;
}

export const DEFAULT_LANES = 4;
export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;
/** The receiver's default maxChunkBytes, less the envelope's header, offset and tag. */
export const MAX_CHUNK_BYTES = LIMITS.maxChunkBytes - CHUNK_OVERHEAD_BYTES;
/** The receiver's default maxLanes; each lane holds up to three chunks (read, sealed, in flight). */
export const MAX_LANES = 64;

/** Checks the options, naming a bad one with TypeError or RangeError, and fills in defaults. */
export function resolveSendOptions(options: SendOptions): SendSettings {
  const { client, resume } = options;
  if (typeof client?.sign !== "function" || typeof client.seal !== "function") {
    throw new TypeError("options.client must be an SvcClient");
  }
  if (typeof options.peer !== "string" || !/^https?:\/\/[^/]/.test(options.peer)) {
    throw new TypeError("options.peer must be an http(s) URL");
  }
  if (resume !== undefined) checkResume(resume, options);
  const lanes = resume?.lanes ?? options.lanes ?? DEFAULT_LANES;
  const chunkBytes = resume?.chunkBytes ?? options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  integer("lanes", lanes, 1, MAX_LANES);
  integer("chunkBytes", chunkBytes, 1, MAX_CHUNK_BYTES);
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  integer("retry.attempts", retry.attempts, 1, 1000);
  integer("retry.baseMs", retry.baseMs, 0, 3_600_000);
  integer("retry.maxMs", retry.maxMs, retry.baseMs, 3_600_000);
  const timeoutMs = options.timeoutMs ?? 120_000;
  integer("timeoutMs", timeoutMs, 1, 2 ** 31 - 1);
  if (options.name !== undefined && (typeof options.name !== "string" || options.name === "")) {
    throw new TypeError("options.name must be a non-empty string");
  }
  return {
    client,
    to: addressOption(options.to),
    peer: options.peer.replace(/\/+$/, ""),
    lanes,
    chunkBytes,
    name: options.name,
    resume,
    fetch: options.fetch,
    signal: options.signal,
    retry,
    timeoutMs,
  };
}

function checkResume(resume: ResumeInfo, options: SendOptions): void {
  if (typeof resume.streamId !== "string" || !isStreamId(resume.streamId)) {
    throw new TypeError("options.resume.streamId must be a StreamId");
  }
  if (!(resume.key instanceof Uint8Array) || resume.key.length !== 32) {
    throw new TypeError("options.resume.key must be 32 bytes");
  }
  const version = resume.version ?? 1;
  if (version !== 1 && version !== 2) throw new TypeError("options.resume.version must be 1 or 2");
  if (
    version === 1 &&
    (typeof resume.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(resume.sha256))
  ) {
    throw new TypeError("options.resume.sha256 must be 64 lower-hex digits");
  }
  if (resume.size !== undefined) integer("resume.size", resume.size, 0, Number.MAX_SAFE_INTEGER);
  const { cipher } = resume;
  if (cipher !== undefined && (version === 1 || !CHUNK_AEADS.includes(cipher))) {
    throw new TypeError(
      "options.resume.cipher must be chacha20-poly1305 or aes-256-gcm, for a version 2 stream",
    );
  }
  for (const field of ["lanes", "chunkBytes"] as const) {
    const given = options[field];
    if (given !== undefined && given !== resume[field]) {
      throw new RangeError(
        `options.${field} is ${given}, but the stream being resumed was started with ${resume[field]}`,
      );
    }
  }
}

function integer(name: string, value: unknown, min: number, max: number): void {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new RangeError(`options.${name} must be an integer in ${min}..${max}`);
  }
}

function addressOption(value: unknown): string {
  if (typeof value !== "string") throw new TypeError("options.to must be an address");
  try {
    return normalizeAddress(value);
  } catch (error) {
    if (error instanceof CanonicalError) throw new RangeError("options.to is not a valid address");
    throw error;
  }
}
