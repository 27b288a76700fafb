import { randomBytes } from "node:crypto";
import type { EventEmitter } from "node:events";
import { open } from "node:fs/promises";
import { decodeBase64Url, encodeBase64 } from "@svc/canonical";
import {
  type ChunkAead,
  LaneCursors,
  newStreamId,
  planStream,
  STREAM_ID_BYTES,
  type StreamPlan,
  type StreamStatus,
  type TransferVersion,
} from "@svc/protocol/transfer";
import { defaultChunkCipher, inPlaceChaCha } from "../cipher/default-chunk-cipher.js";
import { InOrderHash } from "../partial/in-order-hash.js";
import { ChunkReader } from "./chunk-reader.js";
import { TransferError } from "./errors.js";
import { LANE_BUFFERS, runLane } from "./lane.js";
import type { ResumeInfo, SendSettings } from "./options.js";
import { PauseGate } from "./pause-gate.js";
import { PeerRequests } from "./peer-requests.js";
import { fetchTransport, nodeHttpTransport, type PeerTransport } from "./peer-transport.js";
import { type Progress, RateMeter } from "./progress.js";
import type { RecoveryNotice, RetryNotice } from "./retry.js";
import { hashedSourceFile, type SendSource, type SourceFile, sourceFile } from "./source.js";

/** What `done` resolves with. */
export interface TransferResult {
  streamId: string;
  /** The file's size: every byte of it is at the receiver. */
  bytes: number;
  sha256: string;
  /** Wall time of this run, hashing included. */
  seconds: number;
  /** Bytes the receiver already had when this run started (0 for a new stream). */
  resumedBytes: number;
}

export interface TransferEvents {
  /** The receiver knows the stream (start accepted, or state read): what resumes it later. */
  started: [ResumeInfo];
  progress: [Progress];
  retry: [RetryNotice];
  /** A retried request was answered: the receiver is back. */
  recovered: [RecoveryNotice];
}

/** The stream at the receiver when this run begins to send chunks. */
interface Opened {
  status: StreamStatus;
  cursors: bigint[];
}

/**
 * One run of a send: starts or resumes the stream, runs the lanes, finishes. A version 1 stream
 * (for a receiver that takes no other) hashes the source first, as its start names the SHA-256; a
 * version 2 stream hashes the chunks as they are read and names it in the finish, and a resumed
 * one sends a fresh key first (rekey), so that no two runs ever seal under one key and nonce.
 * Control messages go out one at a time in call order, and pause and resume bring the receiver
 * to what the caller last asked for.
 */
export class StreamSender {
  readonly streamId: string;
  readonly key: Uint8Array;
  readonly done: Promise<TransferResult>;
  readonly #settings: SendSettings;
  readonly #events: EventEmitter<TransferEvents>;
  readonly #gate = new PauseGate();
  /** Stops the lanes and their requests: the caller's signal, abort(), or a failed lane. */
  readonly #stop = new AbortController();
  #controls: Promise<void> = Promise.resolve();
  /** Set once the receiver knows the stream. */
  #requests: PeerRequests | undefined;
  #wantPaused = false;
  #receiverPaused = false;
  #finishing = false;
  #settled = false;
  #abortReason: string | undefined;
  #abortSent: Promise<void> = Promise.resolve();

  constructor(source: SendSource, settings: SendSettings, events: EventEmitter<TransferEvents>) {
    this.#settings = settings;
    this.#events = events;
    const { resume } = settings;
    this.streamId = resume?.streamId ?? newStreamId();
    const keepsKey = resume !== undefined && (resume.version ?? 1) === 1;
    this.key = keepsKey ? resume.key : new Uint8Array(randomBytes(32));
    this.done = this.#run(source).finally(() => {
      this.#settled = true;
    });
    // Not every caller reads done (one that aborts may only await abort()): no unhandled rejection.
    this.done.catch(() => undefined);
  }

  /** Stops sending once the chunks in flight are answered, then tells the receiver. */
  pause(): Promise<void> {
    this.#wantPaused = true;
    void this.#gate.close();
    return this.#control(() => this.#reconcile());
  }

  /** Tells the receiver, then sends again. */
  resume(): Promise<void> {
    this.#wantPaused = false;
    return this.#control(() => this.#reconcile());
  }

  /**
   * Cancels the requests in flight, tells the receiver to drop the stream if it knows it, and
   * rejects `done` with TransferError ABORTED. Resolves once the receiver was told.
   */
  async abort(reason?: string): Promise<void> {
    if (this.#settled) return;
    const message = reason ? `the transfer was aborted: ${reason}` : "the transfer was aborted";
    this.#abortReason ??= reason;
    this.#stop.abort(new TransferError("ABORTED", message));
    await this.done.catch(() => undefined);
    await this.#abortSent;
  }

  async #run(source: SendSource): Promise<TransferResult> {
    const startedAt = performance.now();
    const { client, signal: callerSignal } = this.#settings;
    const stop = () => this.#stop.abort(callerSignal?.reason);
    if (callerSignal?.aborted) stop();
    callerSignal?.addEventListener("abort", stop, { once: true });
    const transport = this.#transport();
    let file: SourceFile | undefined;
    try {
      file = await sourceFile(source, this.#settings.name, this.#stop.signal);
      const requests = new PeerRequests({
        transport,
        client,
        address: (await client.whoami()).address,
        to: this.#settings.to,
        peer: this.#settings.peer,
        streamId: this.streamId,
        retry: this.#settings.retry,
        timeoutMs: this.#settings.timeoutMs,
        onRetry: (notice) => this.#events.emit("retry", notice),
        onRecovered: (notice) => this.#events.emit("recovered", notice),
      });
      const versions = await requests.checkReceiver(this.#stop.signal);
      const { resume, lanes, chunkBytes } = this.#settings;
      const version: TransferVersion =
        resume !== undefined ? (resume.version ?? 1) : versions.includes(2) ? 2 : 1;
      const cipher = this.#cipherFor(version);
      if (version === 1) file = await hashedSourceFile(file, this.#stop.signal);
      const plan = planStream({ size: file.size, chunkBytes, lanes });
      const opened = await this.#open(requests, file, plan, version, cipher);
      const resumedBytes = plan.bytesAcked(opened.cursors);
      this.#events.emit("started", {
        streamId: this.streamId,
        key: this.key,
        lanes,
        chunkBytes,
        ...(version === 1 ? { sha256: file.sha256 } : { version, cipher, size: file.size }),
      });
      // A version 2 file not hashed before the send: its chunks are, as they are read, and what
      // this run does not read (the part the receiver had) is read again at the end.
      const hash = file.sha256 === undefined ? new InOrderHash(file.path) : undefined;
      if (opened.status !== "finished") {
        await this.#control(() => this.#reconcile());
        await this.#sendChunks(file, plan, opened.cursors, requests, resumedBytes, cipher, hash);
        await this.#gate.wait(this.#stop.signal);
      }
      const sha256 = file.sha256 ?? (await (hash as InOrderHash).digest(file.size));
      if (opened.status !== "finished") {
        await this.#control(async () => {
          this.#stop.signal.throwIfAborted();
          this.#finishing = true;
          const finish = this.#message("finish");
          await requests.control(
            version === 1 ? finish : { ...finish, sha256 },
            "finished",
            callerSignal,
          );
        });
      }
      return {
        streamId: this.streamId,
        bytes: file.size,
        sha256,
        seconds: (performance.now() - startedAt) / 1000,
        resumedBytes,
      };
    } catch (error) {
      throw await this.#failed(error);
    } finally {
      callerSignal?.removeEventListener("abort", stop);
      await file?.cleanup();
      transport.close();
    }
  }

  /** Starts the stream, or reads how far the receiver got with the one being resumed. */
  async #open(
    requests: PeerRequests,
    file: SourceFile,
    plan: StreamPlan,
    version: TransferVersion,
    cipher: ChunkAead,
  ): Promise<Opened> {
    const { resume, lanes, chunkBytes, signal } = this.#settings;
    if (resume === undefined) {
      await this.#control(async () => {
        const shape = {
          ...this.#message("start"),
          name: file.name,
          size: file.size,
          lanes,
          chunkBytes,
          key: encodeBase64(this.key),
        };
        const message =
          version === 1
            ? { ...shape, sha256: file.sha256 as string }
            : { ...shape, version: 2 as const, cipher };
        await requests.control(message, "active", signal);
        this.#requests = requests;
      });
      return { status: "active", cursors: new LaneCursors(lanes).lastSeqAcked };
    }
    if (version === 2 && resume.size !== undefined && file.size !== resume.size) {
      throw new TransferError(
        "SOURCE_CHANGED",
        `the file is ${file.size} bytes, not the ${resume.size} stream ${this.streamId} was started with`,
      );
    }
    if (version === 1 && file.sha256 !== resume.sha256) {
      throw new TransferError(
        "SOURCE_CHANGED",
        `the file's SHA-256 is ${file.sha256}, not the ${resume.sha256} stream ${this.streamId} was started with`,
      );
    }
    const state = await requests.state(this.#stop.signal);
    if (state === undefined) {
      throw new TransferError(
        "STREAM_NOT_FOUND",
        `the receiver has no stream ${this.streamId} to resume (it expired or was never started); send the file again without resume`,
      );
    }
    if (state.status === "aborted") {
      throw new TransferError("STREAM_CLOSED", `stream ${this.streamId} was aborted`);
    }
    let cursors: bigint[];
    try {
      cursors = LaneCursors.fromResumeLanes(lanes, state.lanes).lastSeqAcked;
      plan.bytesAcked(cursors);
    } catch (error) {
      throw new TransferError(
        "BAD_RESPONSE",
        `the receiver's lanes do not fit the stream's plan (${lanes} lanes of ${chunkBytes}-byte chunks): ${(error as Error).message}`,
        { cause: error },
      );
    }
    this.#receiverPaused = state.status === "paused";
    if (version === 2 && state.status !== "finished") {
      const rekey = { ...this.#message("rekey"), key: encodeBase64(this.key) };
      await this.#control(() => requests.control(rekey, state.status, signal));
    }
    this.#requests = requests;
    return { status: state.status, cursors };
  }

  async #sendChunks(
    file: SourceFile,
    plan: StreamPlan,
    cursors: bigint[],
    requests: PeerRequests,
    resumedBytes: number,
    cipher: ChunkAead,
    hash: InOrderHash | undefined,
  ): Promise<void> {
    const handle = await open(file.path, "r");
    try {
      const reader = new ChunkReader({
        file: handle,
        plan,
        key: this.key,
        streamId: decodeBase64Url(this.streamId, STREAM_ID_BYTES),
        cipher: defaultChunkCipher(cipher),
        buffersPerLane: LANE_BUFFERS,
        ...(hash
          ? { onRead: (offset: number, data: Uint8Array) => hash.accepted(offset, data) }
          : {}),
      });
      const meter = new RateMeter(file.size, resumedBytes);
      const report = () => this.#events.emit("progress", meter.update(plan.bytesAcked(cursors)));
      report();
      const signal = this.#stop.signal;
      const lanes = Array.from({ length: plan.lanes }, (_, laneId) =>
        runLane({
          laneId,
          plan,
          cursors,
          reader,
          gate: this.#gate,
          send: (chunk, laneSignal) => requests.chunk(chunk, laneSignal),
          onAck: report,
          signal,
        }).catch((error: unknown) => {
          // The first failure stops the other lanes; theirs are only echoes of it.
          this.#stop.abort(error);
          throw error;
        }),
      );
      await Promise.all(lanes);
    } finally {
      await handle.close();
    }
  }

  /** Brings the receiver to what the caller last asked for, paused or sending. */
  async #reconcile(): Promise<void> {
    const requests = this.#finishing || this.#settled ? undefined : this.#requests;
    const { signal } = this.#settings;
    if (this.#wantPaused) {
      await this.#gate.close();
      if (requests && !this.#receiverPaused) {
        await requests.control(this.#message("pause"), "paused", signal);
        this.#receiverPaused = true;
      }
      return;
    }
    if (requests && this.#receiverPaused) {
      await requests.control(this.#message("resume"), "active", signal);
      this.#receiverPaused = false;
    }
    this.#gate.open();
  }

  /** The error `done` rejects with; an abort() tells the receiver first. */
  async #failed(error: unknown): Promise<unknown> {
    const reason = this.#stop.signal.aborted ? this.#stop.signal.reason : error;
    const requests = this.#requests;
    if (requests && reason instanceof TransferError && reason.code === "ABORTED") {
      const message = { ...this.#message("abort"), reason: this.#abortReason };
      this.#abortSent = this.#control(() =>
        requests.control(message, "aborted", this.#settings.signal),
      );
      await this.#abortSent.catch(() => undefined);
    }
    return reason;
  }

  /**
   * A version 1 stream's AEAD is ChaCha20-Poly1305. A new version 2 stream takes libsodium's
   * in-place ChaCha20-Poly1305 where it loads: node:crypto's AES-256-GCM is as fast here, but
   * answers each chunk with a new buffer, whose garbage held each side's RSS some 45 MiB higher.
   * Elsewhere AES-256-GCM, faster than node:crypto's ChaCha20-Poly1305. A resumed stream keeps
   * its own (AES-256-GCM when the resume information names none).
   */
  #cipherFor(version: TransferVersion): ChunkAead {
    const { resume } = this.#settings;
    if (version === 1) return "chacha20-poly1305";
    if (resume !== undefined) return resume.cipher ?? "aes-256-gcm";
    return inPlaceChaCha() ? "chacha20-poly1305" : "aes-256-gcm";
  }

  /** Runs `send` after the control messages queued before it. */
  #control(send: () => Promise<void>): Promise<void> {
    const sent = this.#controls.then(send);
    this.#controls = sent.catch(() => undefined);
    return sent;
  }

  #message<T extends "start" | "pause" | "resume" | "finish" | "abort" | "rekey">(type: T) {
    return { type, streamId: this.streamId };
  }

  #transport(): PeerTransport {
    const { peer, fetch } = this.#settings;
    return fetch ? fetchTransport(peer, fetch) : nodeHttpTransport(peer);
  }
}
