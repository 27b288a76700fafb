import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { keepAliveSockets } from "@svc/test-client/node";
import { type LoadSamples, sampleLoad } from "../harness/measure.js";

/** A bare node:http server answering fixed bodies, and a client of it. */
export interface AnswerFloor {
  /** Fetches `path`'s body at `concurrency` for `durationMs`. */
  fetch(path: string, concurrency: number, durationMs: number): Promise<LoadSamples>;
  close(): Promise<void>;
}

/**
 * Serves each body of `bodies` (by path) from a bare node:http server, as the bundle route sends
 * them: an answer without a proof as a string, one with a proof as bytes. Fetched by the same
 * client as the prekey servers, it shows what answers of those sizes cost to send and read by
 * themselves: the floor under the prekey servers' ratio at one client.
 */
export async function serveAnswers(
  bodies: ReadonlyMap<string, string | Uint8Array>,
): Promise<AnswerFloor> {
  const server = createServer((req, res) => {
    const body = bodies.get(req.url ?? "");
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    const length = typeof body === "string" ? Buffer.byteLength(body) : body.length;
    res.writeHead(200, { "content-type": "application/json", "content-length": length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const http = keepAliveSockets(`http://127.0.0.1:${port}`, 16);
  return {
    fetch(path, concurrency, durationMs) {
      return sampleLoad(
        async () => {
          const res = await http(path, { method: "GET" });
          if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
        },
        { concurrency, durationMs },
      );
    },
    async close() {
      http.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
