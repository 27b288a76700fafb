import { existsSync } from "node:fs";
import { join } from "node:path";
import { EXIT } from "@svc/cli/exit";
import { notPrivateUnder } from "@svc/node-kit";
import { afterEach, describe, expect, it } from "vitest";
import {
  BIN,
  type Closer,
  freePort,
  initHome,
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

/** Starts `script` with umask 000, the most permissive: the child inherits it. */
function withOpenUmask<T>(start: () => T): T {
  const umask = process.umask(0);
  try {
    return start();
  } finally {
    process.umask(umask);
  }
}

describe.skipIf(!built)("what a receiver writes (dist/, after pnpm build)", () => {
  it.each(["file", "database"])(
    "is 0700 directories and 0600 files with the %s store, started with umask 000",
    async (store) => {
      const server = await startPrekeyServer(closers);
      const bob = await initHome(closers, server, "bob:1");
      const alice = await initHome(closers, server, "alice:1");
      const work = await tempDir(closers, "peer-transfer-private-");
      const dir = join(work, "received");
      const dataDir = join(work, "db");
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const receiver = withOpenUmask(() =>
        spawnNode(closers, MAIN, [], {
          SVC_SERVER: server,
          SVC_HOME: bob,
          SVC_TRANSFER_PORT: String(port),
          SVC_TRANSFER_DIR: dir,
          SVC_TRANSFER_STORE: store,
          SVC_TRANSFER_DATA_DIR: dataDir,
          SVC_LOG_LEVEL: "silent",
        }),
      );
      const healthy = () =>
        fetch(`${url}/v1/transfer/health`).then(
          (answer) => answer.ok,
          () => false,
        );
      await waitFor(healthy, 60_000, "the receiver");
      const file = await randomFile(work, "notes.txt", 300_000);
      const sender = spawnNode(closers, BIN, ["send", file, "--to", "bob:1", "--peer", url], {
        SVC_SERVER: server,
        SVC_HOME: alice,
      });
      expect(await sender.exited).toBe(EXIT.ok);
      expect(await notPrivateUnder(dir)).toEqual([]);
      expect(existsSync(join(dir, "notes.txt"))).toBe(true);
      receiver.child.kill("SIGTERM");
      expect(await receiver.exited).toBe(0);
      expect(await notPrivateUnder(dir)).toEqual([]);
      if (store === "database") expect(await notPrivateUnder(dataDir)).toEqual([]);
    },
    120_000,
  );

  it("exits 2 naming each bad bound", async () => {
    const bad = spawnNode(closers, MAIN, [], {
      SVC_TRANSFER_MAX_STREAMS_PER_SENDER: "0",
      SVC_TRANSFER_MAX_RESERVED_BYTES: "lots",
      SVC_TRANSFER_PARTIAL_TTL_MS: "5",
    });
    expect(await bad.exited).toBe(2);
    for (const name of [
      "SVC_TRANSFER_MAX_STREAMS_PER_SENDER",
      "SVC_TRANSFER_MAX_RESERVED_BYTES",
      "SVC_TRANSFER_PARTIAL_TTL_MS",
    ]) {
      expect(bad.out.stderr).toContain(`${name}:`);
    }
    expect(bad.out.stderr).not.toMatch(/^\s+at /m);
  });
});
