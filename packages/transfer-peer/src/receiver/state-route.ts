import { ROUTES, routePattern } from "@svc/protocol";
import { type ResumeState, stateSignedMessage } from "@svc/protocol/transfer";
import type { Hono } from "hono";
import { pathStreamId, type Receiver, requireStream } from "./context.js";
import { readSignedHeaders, requireSender, requireSignature } from "./signed-headers.js";

/**
 * GET /v1/transfer/{streamId}/state: each lane's lastSeqAcked, for a sender resuming. Only the
 * stream's sender may ask; an unknown stream is 404 before any signature is checked.
 */
export function registerStateRoute(app: Hono, receiver: Receiver): void {
  app.on(ROUTES.transferState.method, routePattern(ROUTES.transferState), async (c) => {
    const streamId = pathStreamId(c);
    const headers = readSignedHeaders(c);
    const stream = await requireStream(receiver, streamId);
    requireSender(receiver.options, headers, stream.sender);
    const { address, signedAt } = headers;
    await requireSignature(
      receiver.options,
      headers,
      stateSignedMessage({ address, signedAt, streamId }),
    );
    const state: ResumeState = {
      streamId,
      status: stream.status,
      lanes: stream.lastSeqAcked.map((seq, laneId) => ({ laneId, lastSeqAcked: seq.toString() })),
    };
    return c.json(state);
  });
}
