import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { preparedRows } from "@svc/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig, type RunningServer, startServer } from "../src/index.js";

describe("the server on its embedded database", () => {
  let dataDir: string;
  let server: RunningServer;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-embedded-health-"));
    server = await startServer(
      loadConfig({ SVC_PORT: "0", SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: "silent" }),
    );
  });
  afterAll(async () => {
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("answers /healthz at once and /health within its 2 s while a 5 s statement runs", async () => {
    const { storage } = server.svc.services;
    expect(storage.kind).toBe("pglite");
    const sleeping = preparedRows(storage.db, "select pg_sleep(5)", []);
    const started = performance.now();

    const liveness = await fetch(`${server.url}/healthz`);
    expect(liveness.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(500);

    // The one session is busy: /health's storage probe gives up after its 2 s and answers 503.
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: "error" });
    expect(performance.now() - started).toBeLessThan(2000);
    await sleeping;
  });
});
