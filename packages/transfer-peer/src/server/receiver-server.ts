import { join } from "node:path";
import { SvcClient } from "@svc/client";
import { fileStore, nodeClientOptions } from "@svc/client/node";
import { openStorage, type Storage } from "@svc/db";
import {
  bindPort,
  clientIp,
  createMetricsRegistry,
  createRateLimit,
  errorResponder,
  type ListenSettings,
  type MetricsRegistry,
  observeRequests,
  routeNotFound,
} from "@svc/http";
import { createLogger, type Logger, usePrivateUmask } from "@svc/node-kit";
import { Hono } from "hono";
import { type MountedReceiver, mountTransferReceiver } from "../receiver/mount.js";
import type { ReceivedFile } from "../receiver/options.js";
import { transferMigrations } from "../schema.js";
import { databaseTransferStore } from "../store/database-store.js";
import { fileTransferStore } from "../store/file-store.js";
import type { TransferStore } from "../store/transfer-store.js";
import type { ReceiverServerConfig } from "./config.js";

/**
 * A chunk request's whole time to arrive: a 16 MiB chunk over a 1 Mbit/s link takes over two
 * minutes, which @svc/http's default of 60 s (meant for the prekey server's small bodies) would
 * cut off, and the sender would send it again and again.
 */
const CHUNK_REQUEST_TIMEOUT_MS = 300_000;

export interface RunningReceiver {
  readonly url: string;
  readonly port: number;
  /** The receiving identity's address. */
  readonly address: string;
  readonly logger: Logger;
  /** Stops accepting, lets requests in flight finish, then closes the store and the identity. */
  stop(): Promise<void>;
}

export interface ReceiverHooks {
  onFinished?: (file: ReceivedFile) => void;
  /** The client's non-fatal problems (a prekey server that did not answer, say). */
  onClientError?: (error: unknown) => void;
  /** What sets the port and host, named when the port cannot be had; default the variables. */
  listenSettings?: ListenSettings;
}

/** Where the file store keeps stream state: beside the data. */
const stateDirOf = (dir: string): string => join(dir, ".svc-transfer", "streams");

/**
 * The receiver for the identity in `config.home` (made by `svc init`), serving the transfer routes
 * with /health, /healthz and /metrics on config.host:config.port. The port is taken first: one in
 * use ends the start before the home is locked or a directory or database is made. The process's
 * umask becomes 077: partial data, stream state and the embedded database are the user's alone,
 * and so are the files received (0600, as their partial files were made).
 */
export async function startTransferReceiver(
  config: ReceiverServerConfig,
  hooks: ReceiverHooks = {},
): Promise<RunningReceiver> {
  usePrivateUmask();
  const logger = createLogger(config.logLevel);
  const port = await bindPort(config.host, config.port, {
    requestTimeoutMs: CHUNK_REQUEST_TIMEOUT_MS,
    settings: hooks.listenSettings ?? { port: "SVC_TRANSFER_PORT", host: "SVC_TRANSFER_HOST" },
  });
  let client: SvcClient | undefined;
  let storage: Storage | undefined;
  try {
    client = await SvcClient.open({
      server: config.server,
      store: fileStore(config.home),
      kt: config.kt,
      ...nodeClientOptions(),
      onError: hooks.onClientError ?? ((error) => logger.warn("client", { reason: String(error) })),
    });
    const { address } = await client.whoami();
    storage =
      config.store === "database"
        ? await openStorage({
            databaseUrl: config.databaseUrl,
            dataDir: config.dataDir,
            migrations: [transferMigrations],
          })
        : undefined;
    const store = storage
      ? databaseTransferStore({ db: storage.db })
      : fileTransferStore({ dir: stateDirOf(config.dir) });
    const metrics = createMetricsRegistry();
    const { app, mounted } = receiverApp({
      config,
      client,
      store,
      storage,
      metrics,
      logger,
      hooks,
    });
    const server = port.serve(app.fetch);
    const opened = storage;
    const identity = client;
    return {
      url: server.url,
      port: server.port,
      address,
      logger,
      stop: () =>
        server.stop(async () => {
          mounted.close();
          await opened?.close();
          await identity.close();
        }),
    };
  } catch (error) {
    await storage?.close();
    await client?.close();
    await port.close();
    throw error;
  }
}

function receiverApp(parts: {
  config: ReceiverServerConfig;
  client: SvcClient;
  store: TransferStore;
  storage: Storage | undefined;
  metrics: MetricsRegistry;
  logger: Logger;
  hooks: ReceiverHooks;
}): { app: Hono; mounted: MountedReceiver } {
  const { config, client, store, storage, metrics, logger, hooks } = parts;
  const finished = metrics.counter("svc_transfer_files_total", "Files received whole");
  const finishedBytes = metrics.counter(
    "svc_transfer_file_bytes_total",
    "Bytes of files received whole",
  );
  const app = new Hono();
  app.use(observeRequests(metrics, logger));
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/health", async (c) => {
    try {
      await (storage ? storage.ping() : Promise.resolve());
      return c.json({ status: "ok", service: "svc-peer-transfer" });
    } catch {
      return c.json({ status: "error", service: "svc-peer-transfer" }, 503);
    }
  });
  // A control request names a sender the identity may have to look up in the directory, which
  // hands out one of that sender's one-time prekeys: limit how often anyone can make it do so.
  const controlLimit = createRateLimit({
    route: "/v1/transfer/control",
    limit: "control_per_ip",
    perMinute: config.controlPerIp,
    now: Date.now,
  });
  app.post("/v1/transfer/control", async (c, next) => {
    controlLimit.consume(clientIp(c, config.trustProxy));
    await next();
  });
  app.get("/metrics", async (c) =>
    c.text(await metrics.registry.metrics(), 200, { "Content-Type": metrics.registry.contentType }),
  );
  const mounted = mountTransferReceiver(app, {
    client,
    store,
    dir: config.dir,
    maxChunkBytes: config.maxChunkBytes,
    maxStreamBytes: config.maxStreamBytes,
    maxStreamsPerSender: config.maxStreamsPerSender,
    maxReservedBytesPerSender: config.maxReservedBytesPerSender,
    maxReservedBytes: config.maxReservedBytes,
    partialTtlMs: config.partialTtlMs,
    logger,
    onFinished(file) {
      finished.inc();
      finishedBytes.inc(file.size);
      logger.info("file received", {
        streamId: file.streamId,
        sender: file.sender,
        name: file.name,
        bytes: file.size,
      });
      hooks.onFinished?.(file);
    },
  });
  app.notFound(routeNotFound);
  app.onError(errorResponder(logger));
  return { app, mounted };
}
