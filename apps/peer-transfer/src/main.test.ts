import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { EXIT } from "@svc/cli/exit";
import { createTestDatabase } from "@svc/db/testing";
import { afterEach, describe, expect, it } from "vitest";
import {
  BIN,
  type Closer,
  freePort,
  initHome,
  jsonLines,
  MAIN,
  randomFile,
  runClosers,
  spawnNode,
  startPrekeyServer,
  tempDir,
  waitFor,
} from "./test-support/processes.js";

const built = existsSync(MAIN);
const closers: Closer[] = [];
afterEach(() => runClosers(closers));

const backends: [string, () => Promise<Record<string, string>>][] = [
  ["the embedded database", async () => ({})],
];
if (process.env.TEST_DATABASE_URL) {
  backends.push([
    "PostgreSQL",
    async () => {
      const database = await createTestDatabase(process.env.TEST_DATABASE_URL as string);
      closers.push(() => database.drop());
      return { DATABASE_URL: database.url };
    },
  ]);
}

describe.skipIf(!built)("the peer-transfer server (dist/main.js)", () => {
  it.each(backends)(
    "receives into SVC_TRANSFER_DIR with stream state in %s, and stops on SIGTERM",
    async (_, database) => {
      const server = await startPrekeyServer(closers);
      const bob = await initHome(closers, server, "bob:1");
      const alice = await initHome(closers, server, "alice:1");
      const work = await tempDir(closers, "peer-transfer-main-");
      const port = await freePort();
      const receiver = spawnNode(closers, MAIN, [], {
        ...(await database()),
        SVC_SERVER: server,
        SVC_HOME: bob,
        SVC_TRANSFER_PORT: String(port),
        SVC_TRANSFER_DIR: join(work, "received"),
        SVC_TRANSFER_DATA_DIR: join(work, "db"),
        SVC_LOG_LEVEL: "info",
      });
      const url = `http://127.0.0.1:${port}`;
      await waitFor(
        () =>
          fetch(`${url}/health`).then(
            (a) => a.ok,
            () => false,
          ),
        60_000,
        "the server",
      );
      expect(jsonLines(receiver.out.stdout).find((l) => l.message === "listening")).toMatchObject({
        address: "bob:1",
        store: "database",
      });

      const file = await randomFile(work, "notes.txt", 3 * 1024 * 1024 + 5);
      const sender = spawnNode(
        closers,
        BIN,
        ["send", file, "--to", "bob:1", "--peer", url, "--chunk-bytes", "1048576", "--json"],
        { SVC_SERVER: server, SVC_HOME: alice },
      );
      expect(await sender.exited).toBe(EXIT.ok);
      const digest = createHash("sha256")
        .update(await readFile(file))
        .digest("hex");
      const received = await readFile(join(work, "received", "notes.txt"));
      expect(createHash("sha256").update(received).digest("hex")).toBe(digest);
      await waitFor(
        () => jsonLines(receiver.out.stdout).some((l) => l.message === "file received"),
        5000,
        "the log line",
      );
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^svc_transfer_files_total 1$/m);

      receiver.child.kill("SIGTERM");
      expect(await receiver.exited).toBe(0);
    },
    120_000,
  );

  it("exits 1 at once on a port in use, naming SVC_TRANSFER_PORT, before making its database", async () => {
    const work = await tempDir(closers, "peer-transfer-main-busy-");
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => taken.close(() => resolve())));
    const { port } = taken.address() as AddressInfo;
    const busy = spawnNode(closers, MAIN, [], {
      SVC_HOME: join(work, "home"),
      SVC_TRANSFER_PORT: String(port),
      SVC_TRANSFER_DIR: join(work, "received"),
      SVC_TRANSFER_DATA_DIR: join(work, "db"),
    });
    expect(await busy.exited).toBe(1);
    expect(busy.out.stderr).toBe(
      `failed to start: port ${port} is in use (set SVC_TRANSFER_PORT)\n`,
    );
    expect(await readdir(work)).toEqual([]);
  });

  it("exits 2 on a bad variable, naming it", async () => {
    const bad = spawnNode(closers, MAIN, [], {
      SVC_TRANSFER_PORT: "http",
      SVC_TRANSFER_STORE: "s3",
    });
    expect(await bad.exited).toBe(2);
    expect(bad.out.stderr).toMatch(/SVC_TRANSFER_PORT/);
    expect(bad.out.stderr).toMatch(/SVC_TRANSFER_STORE: must be database or file/);
  });
});
