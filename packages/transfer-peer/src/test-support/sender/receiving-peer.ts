import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { type HttpBindings, serve } from "@hono/node-server";
import type { SvcClient } from "@svc/client";
import { TRANSFER_HEADERS } from "@svc/protocol/transfer";
import { Hono } from "hono";
import { mountTransferReceiver } from "../../receiver/mount.js";
import type { ReceivedFile } from "../../receiver/options.js";
import { fileTransferStore } from "../../store/file-store.js";
import type { TransferStore } from "../../store/transfer-store.js";
import { type Closer, tempDir } from "../directory.js";

/** A chunk request the receiver answered: lane, seq and status. */
export interface AnsweredChunk {
  laneId: number;
  seq: string;
  status: number;
}

/**
 * What to do with a chunk request before the receiver sees it: "reset" drops the connection, a
 * Response answers in the receiver's place, a number of ms delays it; undefined lets it through.
 */
export type ChunkFault = (chunk: {
  laneId: number;
  seq: string;
}) => "reset" | Response | number | undefined;

/** mountTransferReceiver on @hono/node-server, watched by the sender's end-to-end tests. */
export interface ReceivingPeer {
  url: string;
  app: Hono<{ Bindings: HttpBindings }>;
  store: TransferStore;
  /** Where finished files land. */
  dir: string;
  finished: ReceivedFile[];
  answered: AnsweredChunk[];
  faults: ChunkFault[];
  /** Resolves once no chunk request is being handled (one a killed sender left, say). */
  idle(): Promise<void>;
}

/** `versionOneOnly`: the health answer lists no versions, as a receiver of version 1 only. */
export async function startReceivingPeer(
  closers: Closer[],
  client: SvcClient,
  options: { versionOneOnly?: boolean } = {},
): Promise<ReceivingPeer> {
  const root = await tempDir(closers, "svc-receiving-peer-");
  let handling = 0;
  const peer: Omit<ReceivingPeer, "url"> = {
    app: new Hono<{ Bindings: HttpBindings }>(),
    store: fileTransferStore({ dir: join(root, "streams") }),
    dir: join(root, "files"),
    finished: [],
    answered: [],
    faults: [],
    idle: async () => {
      while (handling > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
  if (options.versionOneOnly) {
    peer.app.get("/v1/transfer/health", async (c) =>
      c.json({ ok: true, address: (await client.whoami()).address }),
    );
  }
  peer.app.use("/v1/transfer/:streamId/chunk", async (c, next) => {
    const chunk = {
      laneId: Number(c.req.header(TRANSFER_HEADERS.laneId)),
      seq: c.req.header(TRANSFER_HEADERS.seq) ?? "",
    };
    handling++;
    try {
      for (const fault of peer.faults) {
        const action = fault(chunk);
        if (action === "reset") {
          c.env.incoming.socket.destroy();
          return c.body(null);
        }
        if (action instanceof Response) return action;
        if (typeof action === "number") await new Promise((resolve) => setTimeout(resolve, action));
      }
      await next();
      peer.answered.push({ ...chunk, status: c.res.status });
    } finally {
      handling--;
    }
  });
  mountTransferReceiver(peer.app, {
    client,
    store: peer.store,
    dir: peer.dir,
    onFinished: (file) => void peer.finished.push(file),
  });
  const server = await new Promise<Server>((resolve) => {
    const started = serve({ fetch: peer.app.fetch, hostname: "127.0.0.1", port: 0 }, () =>
      resolve(started as Server),
    );
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { ...peer, url: `http://127.0.0.1:${port}` };
}

/** Chunk requests per `lane/seq` that the receiver accepted (200). */
export function acceptedChunks(answered: readonly AnsweredChunk[]): Set<string> {
  return new Set(answered.filter((a) => a.status === 200).map((a) => `${a.laneId}/${a.seq}`));
}
