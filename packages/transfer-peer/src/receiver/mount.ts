import { errorResponder } from "@svc/http";
import { type Env, Hono } from "hono";
import { registerChunkRoute } from "./chunk-route.js";
import { createReceiver } from "./context.js";
import { registerControlRoute } from "./control-route.js";
import type { TransferReceiverOptions } from "./options.js";
import { registerStateRoute } from "./state-route.js";

/**
 * Adds the transfer routes of a receiving peer to `app`: GET /v1/transfer/health, POST
 * /v1/transfer/control, POST /v1/transfer/{streamId}/chunk and GET /v1/transfer/{streamId}/state.
 * Their errors are ErrorResponses from @svc/http's error responder, whatever `app` does with
 * its own.
 */
export function mountTransferReceiver<E extends Env>(
  app: Hono<E>,
  options: TransferReceiverOptions,
): void {
  const receiver = createReceiver(options);
  const routes = new Hono();
  routes.get("/v1/transfer/health", async (c) =>
    c.json({ ok: true, address: (await options.client.whoami()).address }),
  );
  registerControlRoute(routes, receiver);
  registerChunkRoute(routes, receiver);
  registerStateRoute(routes, receiver);
  // Set before route(): Hono wraps the routes with the error handler they have at that moment.
  routes.onError(errorResponder(receiver.options.logger));
  app.route("/", routes);
}
