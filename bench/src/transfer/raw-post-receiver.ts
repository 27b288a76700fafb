import { open } from "node:fs/promises";
import { createServer } from "node:http";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { runReceiver } from "./run-side.js";

/**
 * The raw POST's receiver process: node:http streaming the request body into a file, fsynced
 * before the answer as svc's receiver makes what it acknowledged durable. No crypto, no protocol.
 */
await runReceiver(async ({ dir }) => {
  const path = join(dir, "received.bin");
  const server = createServer(async (req, res) => {
    const handle = await open(path, "w", 0o600);
    try {
      await pipeline(req, handle.createWriteStream({ autoClose: false }));
      await handle.sync();
      res.writeHead(200).end();
    } catch (error) {
      res.writeHead(500).end(String(error));
    } finally {
      await handle.close();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/upload`, receivedPath: () => path };
});
