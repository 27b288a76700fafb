import { createServer } from "node:http";
import { join } from "node:path";
import { FileStore } from "@tus/file-store";
import { EVENTS, Server } from "@tus/server";
import { runReceiver } from "./run-side.js";

/**
 * tus's receiver process: @tus/server on node:http with @tus/file-store and their defaults.
 * The FileStore appends each PATCH body to the file and never fsyncs it.
 */
await runReceiver(async ({ dir }) => {
  let finished: string | undefined;
  const tus = new Server({ path: "/files", datastore: new FileStore({ directory: dir }) });
  tus.on(EVENTS.POST_FINISH, (_req, _res, upload) => {
    finished = upload.id;
  });
  const server = createServer((req, res) => void tus.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/files`,
    receivedPath() {
      if (finished === undefined) throw new Error("no tus upload has finished");
      return join(dir, finished);
    },
  };
});
