import { ed25519Sign } from "@svc/canonical";
import type { SvcClient } from "@svc/client";
import { SvcError } from "@svc/protocol";
import {
  type ControlMessage,
  decodeControlMessage,
  LaneCursors,
  nextStreamStatus,
  openChunk,
  planStream,
  type StreamPlan,
  type StreamStatus,
  TRANSFER_HEADERS,
} from "@svc/protocol/transfer";
import { nodeChunkCipher } from "../../cipher/node-chunk-cipher.js";

/** A request as the fake receiver saw it. */
export interface SeenRequest {
  kind: "chunk" | "state" | "control";
  laneId?: number;
  seq?: bigint;
  control?: ControlMessage["type"];
}

/**
 * What the fake does with a request before (or instead of) handling it: an answer of its own,
 * "reset" (the connection fails), or undefined to handle it.
 */
export type Fault = (request: SeenRequest) => Response | "reset" | undefined;

/**
 * A receiver in a fetch function, for the sender's unit tests: it trusts control messages from
 * fakeSenderClient (plaintext behind the 0x02 byte, no ratchet) and checks seqs and plans as the
 * protocol says, without signatures. The real receiver is tested against the sender end to end.
 */
export class FakeReceiver {
  readonly seen: SeenRequest[] = [];
  readonly faults: Fault[] = [];
  status: StreamStatus | undefined;
  start: Extract<ControlMessage, { type: "start" }> | undefined;
  cursors: LaneCursors | undefined;
  data = new Uint8Array(0);
  /** The address /v1/transfer/health names; undefined: none, as a receiver may answer. */
  address: string | undefined;
  #plan: StreamPlan | undefined;
  #key: Uint8Array | undefined;

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    // Not in `seen` and never faulted: the tests count the stream's requests.
    if (url.pathname === "/v1/transfer/health") {
      return json(200, {
        ok: true,
        ...(this.address === undefined ? {} : { address: this.address }),
      });
    }
    const headers = new Headers(init?.headers);
    const body = init?.body instanceof Uint8Array ? init.body : new Uint8Array(0);
    const request = this.#describe(url.pathname, headers, body);
    this.seen.push(request);
    for (const fault of this.faults) {
      const answer = fault(request);
      if (answer === "reset") {
        throw new TypeError("fetch failed", {
          cause: Object.assign(new Error("reset"), { code: "ECONNRESET" }),
        });
      }
      if (answer) return answer;
    }
    try {
      return json(200, this.#handle(request, body));
    } catch (error) {
      if (!(error instanceof SvcError)) throw error;
      return json(error.status, error.body());
    }
  };

  /** Chunk requests per `lane/seq`. */
  chunkPosts(): Map<string, number> {
    const posts = new Map<string, number>();
    for (const { kind, laneId, seq } of this.seen) {
      if (kind !== "chunk") continue;
      const key = `${laneId}/${seq}`;
      posts.set(key, (posts.get(key) ?? 0) + 1);
    }
    return posts;
  }

  controls(): string[] {
    return this.seen.flatMap(({ control }) => (control ? [control] : []));
  }

  #describe(path: string, headers: Headers, body: Uint8Array): SeenRequest {
    if (path.endsWith("/chunk")) {
      return {
        kind: "chunk",
        laneId: Number(headers.get(TRANSFER_HEADERS.laneId)),
        seq: BigInt(headers.get(TRANSFER_HEADERS.seq) ?? "0"),
      };
    }
    if (path.endsWith("/state")) return { kind: "state" };
    return { kind: "control", control: decodeControlMessage(body.subarray(1)).type };
  }

  #handle(request: SeenRequest, body: Uint8Array): unknown {
    if (request.kind === "control") return this.#control(decodeControlMessage(body.subarray(1)));
    const { cursors, status } = this;
    if (cursors === undefined || status === undefined) {
      throw new SvcError("SVC_STREAM_NOT_FOUND", "no such stream");
    }
    if (request.kind === "state") {
      return { streamId: this.start?.streamId, status, lanes: cursors.toResumeLanes() };
    }
    const laneId = request.laneId as number;
    const seq = request.seq as bigint;
    const extra = { lastSeqAcked: cursors.last(laneId).toString() };
    if (status !== "active") {
      throw new SvcError("SVC_INVALID_TRANSITION", `the stream is ${status}`, { extra });
    }
    cursors.accept(laneId, seq);
    const chunk = openChunk(body, this.#key as Uint8Array, nodeChunkCipher);
    const planned = this.#plan?.chunkAt(laneId, seq);
    if (chunk.offset !== planned?.offset || chunk.data.length !== planned.length) {
      throw new Error(`chunk ${laneId}/${seq} is not the plan's`);
    }
    this.data.set(chunk.data, chunk.offset);
    return { ok: true, lastSeqAcked: seq.toString() };
  }

  #control(message: ControlMessage): unknown {
    const next = nextStreamStatus(this.status, message.type);
    if (message.type === "start") {
      this.start = message;
      this.#plan = planStream(message);
      this.#key = Buffer.from(message.key, "base64");
      this.cursors = new LaneCursors(message.lanes);
      this.data = new Uint8Array(message.size);
    }
    this.status = next;
    return { ok: true };
  }
}

/** The sender side of FakeReceiver: signs for real, seals by prefixing 0x02 to the plaintext. */
export function fakeSenderClient(address = "alice@example.org:1"): SvcClient {
  const seed = new Uint8Array(32).fill(7);
  const client: Pick<SvcClient, "whoami" | "sign" | "seal"> = {
    whoami: async () => ({ address, identitySigningKey: "", identityDHKey: "" }),
    sign: async (message) => ed25519Sign(message, seed),
    seal: async (_to, plaintext) => Uint8Array.of(0x02, ...plaintext),
  };
  return client as SvcClient;
}

export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}
