import { decodeBase64Url, encodeBase64 } from "@svc/canonical";
import type { SvcClient } from "@svc/client";
import {
  type ChunkCipher,
  type ControlMessage,
  chunkSignedMessage,
  encodeControlMessage,
  sealChunk,
  stateSignedMessage,
  TRANSFER_HEADERS,
} from "@svc/protocol/transfer";
import { nodeChunkCipher } from "../cipher/node-chunk-cipher.js";

/** Requests go to the app in process; the origin is only there to make URLs whole. */
export const ORIGIN = "http://receiver.test";

/** Who signs a request, and the address its headers give (another's, for the 401 tests). */
export interface Signer {
  client: Pick<SvcClient, "sign">;
  address: string;
}

export interface ChunkRequestOptions {
  streamId: string;
  laneId: number;
  seq: bigint;
  envelope: Uint8Array;
  signedAt?: number;
  /** What the signature covers instead of the request's own lane, seq or stream. */
  signedFor?: Partial<{ laneId: number; seq: bigint; streamId: string }>;
  /** Headers to add, replace or (undefined) leave out. */
  headers?: Record<string, string | undefined>;
}

/** A chunk request as a sender builds it: the three signature headers, lane and seq. */
export async function chunkRequest(signer: Signer, options: ChunkRequestOptions): Promise<Request> {
  const { streamId, laneId, seq, envelope } = options;
  const signedAt = options.signedAt ?? Date.now();
  const signed = { streamId, laneId, seq, ...options.signedFor };
  const message = chunkSignedMessage({
    address: signer.address,
    signedAt,
    ...signed,
    body: envelope,
  });
  const headers = {
    [TRANSFER_HEADERS.senderAddress]: signer.address,
    [TRANSFER_HEADERS.signedAt]: String(signedAt),
    [TRANSFER_HEADERS.signature]: encodeBase64(await signer.client.sign(message)),
    [TRANSFER_HEADERS.laneId]: String(laneId),
    [TRANSFER_HEADERS.seq]: String(seq),
    "content-type": "application/octet-stream",
    ...options.headers,
  };
  return new Request(`${ORIGIN}/v1/transfer/${streamId}/chunk`, {
    method: "POST",
    headers: definedHeaders(headers),
    body: envelope,
  });
}

export async function stateRequest(
  signer: Signer,
  streamId: string,
  signedAt = Date.now(),
): Promise<Request> {
  const message = stateSignedMessage({ address: signer.address, signedAt, streamId });
  return new Request(`${ORIGIN}/v1/transfer/${streamId}/state`, {
    headers: {
      [TRANSFER_HEADERS.senderAddress]: signer.address,
      [TRANSFER_HEADERS.signedAt]: String(signedAt),
      [TRANSFER_HEADERS.signature]: encodeBase64(await signer.client.sign(message)),
    },
  });
}

/** A control message sealed for `to` in a 0x02 envelope by the sender's client. */
export async function controlRequest(
  sender: Pick<SvcClient, "seal">,
  from: string,
  to: string,
  message: ControlMessage,
): Promise<Request> {
  return new Request(`${ORIGIN}/v1/transfer/control`, {
    method: "POST",
    headers: {
      [TRANSFER_HEADERS.senderAddress]: from,
      "content-type": "application/octet-stream",
    },
    body: await sender.seal(to, encodeControlMessage(message)),
  });
}

/** A file cut into its sealed chunks as the lane plan places them. */
export interface SealedFile {
  /** lanes[laneId][seq - 1]: the chunk's envelope. */
  lanes: Uint8Array[][];
}

export function sealFile(
  content: Uint8Array,
  stream: { streamId: string; key: Uint8Array; lanes: number; chunkBytes: number },
  cipher: ChunkCipher = nodeChunkCipher,
): SealedFile {
  const { streamId, key, lanes, chunkBytes } = stream;
  const streamIdBytes = decodeBase64Url(streamId, 16);
  const sealed: Uint8Array[][] = Array.from({ length: lanes }, () => []);
  for (let index = 0; index * chunkBytes < content.length; index++) {
    const laneId = index % lanes;
    const seq = BigInt(Math.floor(index / lanes) + 1);
    const offset = index * chunkBytes;
    const data = content.subarray(offset, offset + chunkBytes);
    const envelope = sealChunk({ streamId: streamIdBytes, laneId, seq, key, offset, data }, cipher);
    sealed[laneId]?.push(envelope);
  }
  return { lanes: sealed };
}

function definedHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}
