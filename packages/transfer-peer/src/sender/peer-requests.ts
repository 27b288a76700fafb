import { encodeBase64 } from "@svc/canonical";
import type { SvcClient } from "@svc/client";
import { ErrorResponseSchema, parseDecimalU64, parseRequest, SvcError } from "@svc/protocol";
import {
  ChunkAck,
  type ControlMessage,
  chunkSignedMessage,
  encodeControlMessage,
  ResumeState,
  type StreamStatus,
  stateSignedMessage,
  TRANSFER_HEADERS,
  TransferHealthResponse,
} from "@svc/protocol/transfer";
import type { PreparedChunk } from "./chunk-reader.js";
import { TransferError } from "./errors.js";
import type { PeerAnswer, PeerRequest, PeerTransport } from "./peer-transport.js";
import {
  parseRetryAfter,
  type RecoveryNotice,
  type RetryNotice,
  type RetryPolicy,
  retryDelayMs,
} from "./retry.js";
import { sleep } from "./wait.js";

export interface PeerRequestsOptions {
  transport: PeerTransport;
  client: SvcClient;
  /** The sender's own address, sent as X-Svc-Sender-Address. */
  address: string;
  /** The receiver's address, for whom control messages are sealed. */
  to: string;
  /** The receiver's base URL, as the caller gave it (for messages). */
  peer: string;
  streamId: string;
  retry: RetryPolicy;
  timeoutMs: number;
  onRetry(notice: RetryNotice): void;
  onRecovered(notice: RecoveryNotice): void;
}

type RequestWithoutSignal = Omit<PeerRequest, "signal">;

/**
 * The receiver's three transfer routes, signed and retried: network errors, 5xx and 429 are sent
 * again (a fresh signature each time); other refusals are TransferErrors at once.
 */
export class PeerRequests {
  readonly #options: PeerRequestsOptions;

  constructor(options: PeerRequestsOptions) {
    this.#options = options;
  }

  /**
   * Sends a chunk; the lane's lastSeqAcked after it. That is the chunk's seq when it is accepted,
   * and the receiver's own cursor when it refuses the seq as a replay or out of order, from which
   * the lane goes on.
   */
  async chunk(chunk: PreparedChunk, signal: AbortSignal): Promise<bigint> {
    const { laneId, seq, envelope, bodyHash } = chunk;
    const name = `chunk lane ${laneId} seq ${seq}`;
    const answer = await this.#exchange(
      name,
      async () => ({
        method: "POST",
        path: `/v1/transfer/${this.#options.streamId}/chunk`,
        headers: {
          "content-type": "application/octet-stream",
          [TRANSFER_HEADERS.laneId]: String(laneId),
          [TRANSFER_HEADERS.seq]: String(seq),
          ...(await this.#signed((fields) =>
            chunkSignedMessage({ ...fields, laneId, seq, bodyHash }),
          )),
        },
        body: envelope,
      }),
      [409],
      signal,
    );
    if (answer.status !== 409) {
      const ack = parse(ChunkAck, answer, name);
      if (!ack.ok) {
        throw new TransferError("BAD_RESPONSE", `${name}: the receiver answered ok: false`);
      }
      return BigInt(ack.lastSeqAcked);
    }
    const error = svcErrorOf(answer, name);
    if (error.code === "SVC_REPLAY" || error.code === "SVC_OUT_OF_ORDER") {
      const acked = parseDecimalU64(String(error.extra.lastSeqAcked));
      if (acked !== undefined) return acked;
      throw new TransferError("BAD_RESPONSE", `${name}: ${error.code} without lastSeqAcked`, {
        cause: error,
      });
    }
    if (error.code === "SVC_INVALID_TRANSITION") throw await this.#closed(name, error, signal);
    throw refused(name, answer, error);
  }

  /**
   * Checks that the receiver serves the address the stream is for, when it says which (its
   * /v1/transfer/health names it): else every control message would be sealed for the wrong peer.
   * Returns the transfer wire versions it takes.
   */
  async checkReceiver(signal?: AbortSignal): Promise<readonly number[]> {
    const name = "health";
    const answer = await this.#exchange(
      name,
      async () => ({ method: "GET", path: "/v1/transfer/health", headers: {} }),
      [],
      signal,
    );
    const { address, versions } = parse(TransferHealthResponse, answer, name);
    if (address !== undefined && address !== this.#options.to) {
      throw new TransferError(
        "WRONG_RECEIVER",
        `the receiver at ${this.#options.peer} is ${address}'s, not ${this.#options.to}'s: check the address and the peer URL`,
      );
    }
    // A receiver that names no versions knows only the first.
    return versions ?? [1];
  }

  /** The receiver's ResumeState of the stream; undefined when it has none (404). */
  async state(signal?: AbortSignal): Promise<ResumeState | undefined> {
    const name = "state";
    const answer = await this.#exchange(
      name,
      async () => ({
        method: "GET",
        path: `/v1/transfer/${this.#options.streamId}/state`,
        headers: await this.#signed(stateSignedMessage),
      }),
      [404],
      signal,
    );
    if (answer.status === 404) {
      const error = svcErrorOf(answer, name);
      if (error.code === "SVC_STREAM_NOT_FOUND") return undefined;
      throw refused(name, answer, error);
    }
    const state = parse(ResumeState, answer, name);
    if (state.streamId !== this.#options.streamId) {
      throw new TransferError("BAD_RESPONSE", `state: answered for stream ${state.streamId}`);
    }
    return state;
  }

  /**
   * Seals `message` for the receiver (a new ratchet message on every attempt, since the receiver
   * refuses an envelope it has opened) and posts it. A 409 SVC_INVALID_TRANSITION is success when
   * the stream already is `expected`: an earlier attempt whose answer was lost got through.
   */
  async control(
    message: ControlMessage,
    expected: StreamStatus,
    signal?: AbortSignal,
  ): Promise<void> {
    const { client, to, address } = this.#options;
    const name = `control ${message.type}`;
    const answer = await this.#exchange(
      name,
      async () => ({
        method: "POST",
        path: "/v1/transfer/control",
        headers: {
          "content-type": "application/octet-stream",
          [TRANSFER_HEADERS.senderAddress]: address,
        },
        body: await client.seal(to, encodeControlMessage(message)),
      }),
      [409],
      signal,
    );
    if (answer.status !== 409) return;
    const error = svcErrorOf(answer, name);
    if (error.code !== "SVC_INVALID_TRANSITION") throw refused(name, answer, error);
    const state = await this.state(signal);
    if (state?.status === expected) return;
    throw refused(name, answer, error);
  }

  /** Why a chunk is refused for a stream that is not active, with the receiver's status. */
  async #closed(name: string, error: SvcError, signal: AbortSignal): Promise<TransferError> {
    const state = await this.state(signal);
    return new TransferError(
      "STREAM_CLOSED",
      `${name}: the receiver's stream is ${state?.status ?? "gone"}, not active`,
      { cause: error },
    );
  }

  /** The three signature headers over the message `build` makes of address, time and stream. */
  async #signed(
    build: (fields: { address: string; signedAt: number; streamId: string }) => Uint8Array,
  ): Promise<Record<string, string>> {
    const { client, address, streamId } = this.#options;
    const signedAt = Date.now();
    const signature = await client.sign(build({ address, signedAt, streamId }));
    return {
      [TRANSFER_HEADERS.senderAddress]: address,
      [TRANSFER_HEADERS.signedAt]: String(signedAt),
      [TRANSFER_HEADERS.signature]: encodeBase64(signature),
    };
  }

  /** Sends until an answer that is 2xx or in `keep`, retrying what the RetryPolicy covers. */
  async #exchange(
    name: string,
    build: () => Promise<RequestWithoutSignal>,
    keep: readonly number[],
    signal: AbortSignal | undefined,
  ): Promise<PeerAnswer> {
    const { transport, retry, timeoutMs, onRetry, onRecovered } = this.#options;
    for (let attempt = 1; ; attempt++) {
      const request = await build();
      const timeout = AbortSignal.timeout(timeoutMs);
      let reason: string;
      let retryAfter: number | undefined;
      let cause: unknown;
      try {
        const answer = await transport.send({
          ...request,
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        const { status } = answer;
        if ((status >= 200 && status < 300) || keep.includes(status)) {
          if (attempt > 1) onRecovered({ request: name, attempt });
          return answer;
        }
        if (status !== 429 && status < 500) throw refused(name, answer, svcErrorOf(answer, name));
        // A proxy's error page is no ErrorResponse, and still worth retrying.
        const refusal = errorResponseOf(answer);
        cause = refusal;
        reason = refusal ? `${status} ${refusal.code}` : `${status}`;
        retryAfter = parseRetryAfter(answer.retryAfter);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (error instanceof TransferError) throw error;
        cause = error;
        reason = timeout.aborted ? `no answer in ${timeoutMs} ms` : describe(error);
      }
      const delayMs =
        attempt < retry.attempts ? retryDelayMs(retry, attempt, retryAfter) : undefined;
      if (delayMs === undefined) {
        throw new TransferError("UNAVAILABLE", `${name}: ${attempt} attempts, the last ${reason}`, {
          cause,
        });
      }
      onRetry({ request: name, attempt, delayMs, reason });
      await sleep(delayMs, signal);
    }
  }
}

/** The ErrorResponse of a non-2xx answer as an SvcError; undefined when it is not one. */
function errorResponseOf(answer: PeerAnswer): SvcError | undefined {
  let body: ReturnType<typeof parseRequest<typeof ErrorResponseSchema>>;
  try {
    body = parseRequest(ErrorResponseSchema, answer.json);
  } catch {
    return undefined;
  }
  const { name: _name, code, message, ...extra } = body;
  return new SvcError(code, message, { status: answer.status, extra });
}

/** The ErrorResponse of a refusal the protocol describes; anything else is a BAD_RESPONSE. */
function svcErrorOf(answer: PeerAnswer, name: string): SvcError {
  const error = errorResponseOf(answer);
  if (error) return error;
  throw new TransferError(
    "BAD_RESPONSE",
    `${name}: ${answer.status} without an ErrorResponse; is the peer URL a transfer receiver?`,
  );
}

function refused(name: string, answer: PeerAnswer, error: SvcError): TransferError {
  return new TransferError(
    "REFUSED",
    `${name}: the receiver answered ${answer.status} ${error.code}: ${error.message}`,
    { cause: error },
  );
}

/** A success answer checked against its schema; a mismatch is a BAD_RESPONSE. */
function parse<TSchema extends Parameters<typeof parseRequest>[0]>(
  schema: TSchema,
  answer: PeerAnswer,
  name: string,
): ReturnType<typeof parseRequest<TSchema>> {
  try {
    return parseRequest(schema, answer.json);
  } catch (error) {
    throw new TransferError("BAD_RESPONSE", `${name}: ${describe(error)}`, { cause: error });
  }
}

/** An error's message, with the system error code (ECONNRESET) that fetch hides in its cause. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code =
    (error.cause as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown }).code;
  return typeof code === "string" ? `${error.message} (${code})` : error.message;
}
