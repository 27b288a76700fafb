import { createHash } from "node:crypto";
import { decodeBase64Url, equalBytes } from "@svc/canonical";
import { readBody, requireDeclaredLength } from "@svc/http";
import { isErrno } from "@svc/node-kit";
import { badRequest, ROUTES, routePattern, SvcError } from "@svc/protocol";
import {
  checkChunkSeq,
  chunkSignedMessage,
  decodeChunkHeader,
  openChunk,
  planStream,
  requireActive,
  STREAM_ID_BYTES,
} from "@svc/protocol/transfer";
import type { Hono } from "hono";
import type { StreamRecord } from "../store/transfer-store.js";
import { readLaneHeaders } from "./chunk-headers.js";
import { cipherOf, pathStreamId, type Receiver, requireStream } from "./context.js";
import { readSignedHeaders, requireSender, requireSignature } from "./signed-headers.js";

/**
 * POST /v1/transfer/{streamId}/chunk. Size (413) before the body is read; stream (404); sender
 * and freshness (401); then the body: its signature (401), its header against the request's
 * (400); then, once the lane's previous chunk has been judged (see LaneArrivals), one chunk of a
 * lane at a time, acceptChunk.
 */
export function registerChunkRoute(app: Hono, receiver: Receiver): void {
  const { options } = receiver;
  app.on(ROUTES.transferChunk.method, routePattern(ROUTES.transferChunk), async (c) => {
    const streamId = pathStreamId(c);
    const headers = readSignedHeaders(c);
    const { laneId, seq } = readLaneHeaders(c);
    requireDeclaredLength(c, options.maxChunkBytes);
    const lane = `${streamId}/${laneId}`;
    // Under way from here, before the stream is read: a chunk that reads the lane's cursor
    // after this one is accepted learns of it by the cursor or by this request's end.
    const ended = receiver.arrivals.arrive(lane, seq);
    let body: Uint8Array | undefined;
    try {
      const stream = await requireStream(receiver, streamId);
      requireSender(options, headers, stream.sender);
      body = await readBody(c, options.maxChunkBytes, { pool: receiver.bodies });
      const { address, signedAt } = headers;
      // node:crypto's SHA-256 runs at several hundred MB/s where the portable one does not.
      const bodyHash = createHash("sha256").update(body).digest("hex");
      await requireSignature(
        options,
        headers,
        chunkSignedMessage({ address, signedAt, streamId, laneId, seq, bodyHash }),
      );
      const header = decodeChunkHeader(body, cipherOf(receiver, stream).envelopeType);
      if (header.laneId !== laneId || header.seq !== seq) {
        throw badRequest("the chunk's lane and seq are not the request's");
      }
      if (!equalBytes(header.streamId, decodeBase64Url(streamId, STREAM_ID_BYTES))) {
        throw badRequest("the chunk belongs to another stream");
      }
      if (laneId >= stream.lastSeqAcked.length) {
        throw badRequest(`the stream has no lane ${laneId}`);
      }
      await receiver.arrivals.previous(lane, seq, stream.lastSeqAcked[laneId] ?? 0n);
      const envelope = body;
      const lastSeqAcked = await receiver.lanes.run(lane, () =>
        acceptChunk(receiver, streamId, laneId, seq, envelope),
      );
      return c.json({ ok: true, lastSeqAcked: lastSeqAcked.toString() });
    } finally {
      ended();
      // Nothing holds the body past its request: the chunk is written and hashed by now.
      receiver.bodies.give(body);
    }
  });
}

/**
 * With the lane to itself: the stream is active and seq is the lane's next (409 with the lane's
 * lastSeqAcked); the chunk decrypts to its planned offset and length (400); its data is written
 * and on disk before the lane advances. Returns the lane's new lastSeqAcked.
 */
async function acceptChunk(
  receiver: Receiver,
  streamId: string,
  laneId: number,
  seq: bigint,
  envelope: Uint8Array,
): Promise<bigint> {
  const { store, now } = receiver.options;
  const stream = await requireStream(receiver, streamId);
  requireNext(stream, laneId, seq);
  const planned = planStream({
    size: stream.size,
    chunkBytes: stream.chunkBytes,
    lanes: stream.lastSeqAcked.length,
  }).chunkAt(laneId, seq);
  if (!planned) throw badRequest(`lane ${laneId} has no chunk ${seq}`);
  // The key read here, with the lane to itself: a rekey's new key opens the chunks after it.
  const chunk = openChunk(envelope, stream.key, cipherOf(receiver, stream));
  if (chunk.offset !== planned.offset || chunk.data.length !== planned.length) {
    throw badRequest(
      `chunk ${seq} of lane ${laneId} must hold bytes ${planned.offset}..+${planned.length}`,
    );
  }
  try {
    await receiver.files.write(streamId, chunk.offset, chunk.data);
  } catch (error) {
    // The partial file goes when the stream is aborted: say so rather than fail.
    if (isErrno(error, "ENOENT")) requireNext(await requireStream(receiver, streamId), laneId, seq);
    throw error;
  }
  if (await store.advanceLane(streamId, laneId, seq)) {
    receiver.files.accepted(streamId, chunk.offset, chunk.data);
    receiver.budget.moved(streamId, now());
    return seq;
  }
  // Another request (of another receiver on the same database) moved the stream meanwhile.
  requireNext(await requireStream(receiver, streamId), laneId, seq);
  throw new Error(`lane ${laneId} of ${streamId} did not advance to ${seq}`);
}

/** 409 unless the stream is active and seq is the lane's next; the body carries lastSeqAcked. */
function requireNext(stream: StreamRecord, laneId: number, seq: bigint): void {
  const lastSeqAcked = stream.lastSeqAcked[laneId] ?? 0n;
  try {
    requireActive(stream.status);
  } catch (error) {
    if (!(error instanceof SvcError)) throw error;
    throw new SvcError(error.code, error.message, {
      extra: { lastSeqAcked: lastSeqAcked.toString() },
    });
  }
  checkChunkSeq(lastSeqAcked, seq);
}
