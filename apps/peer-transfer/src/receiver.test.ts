import { join } from "node:path";
import { loadTransferConfig, startTransferReceiver } from "@svc/transfer-peer";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Closer,
  initHome,
  runClosers,
  startPrekeyServer,
  tempDir,
} from "./test-support/processes.js";

const closers: Closer[] = [];
afterEach(() => runClosers(closers));

describe("the receiver app", () => {
  it("limits control requests per client IP (each may cost a sender lookup): 429 with Retry-After", async () => {
    const server = await startPrekeyServer(closers);
    const home = await initHome(closers, server, "bob:1");
    const dir = await tempDir(closers, "peer-transfer-limit-");
    const config = loadTransferConfig(
      {
        SVC_SERVER: server,
        SVC_HOME: home,
        SVC_TRANSFER_DIR: join(dir, "in"),
        SVC_TRANSFER_PORT: "0",
        SVC_TRANSFER_CONTROL_PER_IP: "2",
        SVC_LOG_LEVEL: "silent",
      },
      { store: "file" },
    );
    const receiver = await startTransferReceiver(config);
    closers.push(() => receiver.stop());

    const control = () =>
      fetch(`${receiver.url}/v1/transfer/control`, {
        method: "POST",
        headers: {
          "X-Svc-Sender-Address": "mallory:1",
          "Content-Type": "application/octet-stream",
        },
        body: new Uint8Array([2, 1, 0]),
      });
    expect((await control()).status).toBe(400);
    expect((await control()).status).toBe(400);
    const limited = await control();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ code: "SVC_RATE_LIMITED" });
    expect((await fetch(`${receiver.url}/v1/transfer/health`)).status).toBe(200);
  });
});
