import { errorResponder } from "@svc/http";
import { ROUTES, routePattern } from "@svc/protocol";
import { TRANSFER_VERSIONS } from "@svc/protocol/transfer";
import { type Env, Hono } from "hono";
import { registerChunkRoute } from "./chunk-route.js";
import { createReceiver } from "./context.js";
import { registerControlRoute } from "./control-route.js";
import { expireIdle } from "./expiry.js";
import type { TransferReceiverOptions } from "./options.js";
import { registerStateRoute } from "./state-route.js";

/** What mountTransferReceiver leaves running beside the routes. */
export interface MountedReceiver {
  /** Expires the streams idle for partialTtlMs now; resolves to how many (see partialTtlMs). */
  expireIdle(): Promise<number>;
  /** Stops the periodic expiry and closes the partial files left open. */
  close(): void;
}

/** The most time between two expiry checks. */
const EXPIRY_CHECK_MS = 60_000;

/**
 * Adds the transfer routes of a receiving peer to `app`: GET /v1/transfer/health, POST
 * /v1/transfer/control, POST /v1/transfer/{streamId}/chunk and GET /v1/transfer/{streamId}/state.
 * Their errors are ErrorResponses from @svc/http's error responder, whatever `app` does with
 * its own. Idle streams are expired every minute (or partialTtlMs, if shorter) until close().
 */
export function mountTransferReceiver<E extends Env>(
  app: Hono<E>,
  options: TransferReceiverOptions,
): MountedReceiver {
  const receiver = createReceiver(options);
  const routes = new Hono();
  routes.on(ROUTES.transferHealth.method, routePattern(ROUTES.transferHealth), async (c) =>
    c.json({
      ok: true,
      address: (await options.client.whoami()).address,
      versions: [...TRANSFER_VERSIONS],
    }),
  );
  registerControlRoute(routes, receiver);
  registerChunkRoute(routes, receiver);
  registerStateRoute(routes, receiver);
  // Set before route(): Hono wraps the routes with the error handler they have at that moment.
  routes.onError(errorResponder(receiver.options.logger));
  app.route("/", routes);

  const { logger, partialTtlMs } = receiver.options;
  const check = () =>
    expireIdle(receiver).catch((error: unknown) =>
      logger.warn("expiring idle streams failed", { reason: String(error) }),
    );
  const timer = setInterval(check, Math.min(EXPIRY_CHECK_MS, partialTtlMs));
  timer.unref();
  return {
    expireIdle: () => expireIdle(receiver),
    close() {
      clearInterval(timer);
      receiver.files.close();
    },
  };
}
