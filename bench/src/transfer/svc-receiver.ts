import { join } from "node:path";
import { serve } from "@hono/node-server";
import { fileTransferStore, mountTransferReceiver } from "@svc/transfer-peer";
import { Hono } from "hono";
import { runReceiver } from "./run-side.js";
import { openIdentity } from "./svc-identity.js";

/**
 * svc's receiver process: an identity of its own, and mountTransferReceiver on a Hono app served
 * by @hono/node-server, with stream state in the FILE store (fileTransferStore: a JSON file per
 * stream, rewritten atomically as lanes advance) and the node:crypto chunk cipher (its default).
 */
await runReceiver(async ({ dir, server = "" }) => {
  const client = await openIdentity(server, join(dir, "receiver-identity"), "receiver");
  const { address } = await client.whoami();
  let received: string | undefined;
  const app = new Hono();
  mountTransferReceiver(app, {
    client,
    store: fileTransferStore({ dir: join(dir, "streams") }),
    dir: join(dir, "files"),
    onFinished: (file) => {
      received = file.path;
    },
  });
  const port = await new Promise<number>((resolve) => {
    serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => resolve(info.port));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    address,
    receivedPath() {
      if (received === undefined) throw new Error("no svc transfer has finished");
      return received;
    },
  };
});
