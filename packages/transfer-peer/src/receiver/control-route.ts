import { normalizeAddress } from "@svc/canonical";
import { readBody } from "@svc/http";
import {
  badRequest,
  RATCHET_ENVELOPE_TYPE,
  ROUTES,
  routePattern,
  SMALL_BODY_LIMIT,
  SvcError,
} from "@svc/protocol";
import { decodeControlMessage, TRANSFER_HEADERS } from "@svc/protocol/transfer";
import type { Hono } from "hono";
import { clientFailure } from "./client-failure.js";
import type { Receiver } from "./context.js";
import { applyControl } from "./control.js";

/**
 * POST /v1/transfer/control: a 0x02 ratchet envelope from X-Svc-Sender-Address. The receiving
 * client opens it (which authenticates the sender, and refuses a replay), then the control
 * message is applied with the stream's lock held.
 */
export function registerControlRoute(app: Hono, receiver: Receiver): void {
  app.on(ROUTES.transferControl.method, routePattern(ROUTES.transferControl), async (c) => {
    const address = c.req.header(TRANSFER_HEADERS.senderAddress);
    if (address === undefined) throw badRequest(`${TRANSFER_HEADERS.senderAddress} is required`);
    const sender = normalizeAddress(address);
    const envelope = await readBody(c, SMALL_BODY_LIMIT);
    if (envelope[0] !== RATCHET_ENVELOPE_TYPE) {
      throw badRequest("the body must be a ratchet envelope (leading byte 0x02)");
    }
    let plaintext: Uint8Array;
    try {
      plaintext = await receiver.options.client.open(sender, envelope);
    } catch (error) {
      throw clientFailure(error, (reason) => new SvcError("SVC_BAD_REQUEST", reason));
    }
    const message = decodeControlMessage(plaintext);
    await receiver.streams.run(message.streamId, () => applyControl(receiver, sender, message));
    return c.json({ ok: true });
  });
}
