import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { spawnNode } from "@svc/processes";
import { startTestServer, type TestServer } from "@svc/test-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// Every command-line entry point of the repository, run as a user runs it (the built dist/), with
// a bad argument or variable, on a busy port where it listens, and stopped by a signal while it
// runs: each ends with its documented status and never prints a stack frame.

const path = (relative: string) => fileURLToPath(new URL(`../../../${relative}`, import.meta.url));
const BINS = {
  svc: path("apps/cli/bin/svc.js"),
  svcTransfer: path("apps/peer-transfer/bin/svc-transfer.js"),
  svcKt: path("apps/svc-kt/bin/svc-kt.js"),
  svcDb: path("apps/prekey-server/bin/svc-db.js"),
  prekeyServer: path("apps/prekey-server/dist/main.js"),
  peerTransfer: path("apps/peer-transfer/dist/main.js"),
  chat: path("examples/chat/dist/main.js"),
};
const DISTS = [
  "apps/cli/dist/cli.js",
  "apps/cli/dist/alias.js",
  "apps/prekey-server/dist/main.js",
  "apps/peer-transfer/dist/main.js",
  "examples/chat/dist/main.js",
].map(path);
/** The bins run the build, which `pnpm build` makes; CI builds first. */
const built = DISTS.every((file) => existsSync(file));

/** A stack frame as Node prints one: indented `at …`. */
const STACK_FRAME = /^\s+at /m;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * `node <script> <argv>` with only `env` (and PATH); with `stop`, sends that signal once
 * `ready` holds of the output so far.
 */
async function run(
  script: string,
  argv: string[],
  env: Record<string, string>,
  stop?: { signal: NodeJS.Signals; ready: (out: { stdout: string; stderr: string }) => boolean },
): Promise<Ended> {
  const child = spawnNode(script, argv, { env });
  const deadline = setTimeout(() => child.child.kill("SIGKILL"), 60_000);
  if (stop) {
    const ready = () => (stop.ready(child.out) ? true : undefined);
    // A process that ends before it is ready is reported by its status, like any other.
    if (await child.waitFor(ready, "ready", 60_000).catch(() => false)) {
      child.child.kill(stop.signal);
    }
  }
  const ended = await child.ended;
  clearTimeout(deadline);
  return { ...ended, ...child.out };
}

/** No stack frame on stderr, and the status expected. */
function expectClean(ended: Ended, code: number): void {
  expect(ended.stderr).not.toMatch(STACK_FRAME);
  expect(ended.stdout).not.toMatch(STACK_FRAME);
  expect({ code: ended.code, signal: ended.signal, stderr: ended.stderr }).toMatchObject({
    code,
    signal: null,
  });
}

describe.skipIf(!built)("every entry point: bad input, a busy port, a signal", () => {
  let server: TestServer;
  let work: string;
  let busy: Server;
  let busyPort: number;
  let home: string;
  let logKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    work = await mkdtemp(join(tmpdir(), "svc-entry-points-"));
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    busyPort = (busy.address() as AddressInfo).port;
    home = join(work, "home-bob");
    const init = await run(BINS.svc, ["init", "--address", "bob:1"], {
      SVC_SERVER: server.url,
      SVC_HOME: home,
    });
    expectClean(init, 0);
    const logId = (await (await fetch(`${server.url}/v1/kt/log_id`)).json()) as {
      checkpointKey: string;
    };
    logKey = logId.checkpointKey;
  }, 60_000);

  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    await server?.stop();
    await rm(work, { recursive: true, force: true });
  });

  /** A directory under the work directory that must still not exist after a failed start. */
  const fresh = (name: string) => join(work, name);

  it("svc: a bad argument (2), a bad server variable (2), SIGINT while listening (0)", async () => {
    expectClean(await run(BINS.svc, ["frobnicate"], {}), 2);
    expectClean(await run(BINS.svc, ["whoami"], { SVC_SERVER: "ftp://x", SVC_HOME: home }), 2);
    const listening = await run(
      BINS.svc,
      ["listen"],
      { SVC_SERVER: server.url, SVC_HOME: home },
      { signal: "SIGINT", ready: (out) => out.stderr.includes("listening as") },
    );
    expectClean(listening, 0);
  });

  it("svc-transfer: a bad argument (2), a busy port (1), SIGTERM while receiving (0)", async () => {
    expectClean(await run(BINS.svcTransfer, ["send", "f", "--lanes", "0"], {}), 2);
    const dir = fresh("transfer-busy");
    const env = { SVC_SERVER: server.url, SVC_HOME: home };
    const taken = await run(
      BINS.svcTransfer,
      ["receive", "--dir", dir, "--port", String(busyPort)],
      env,
    );
    expectClean(taken, 1);
    expect(taken.stderr).toBe(
      `svc-transfer: error: port ${busyPort} is in use (set --port or SVC_TRANSFER_PORT)\n`,
    );
    expect(existsSync(dir)).toBe(false);
    // The same under svc, whose name it then speaks under.
    const svcTaken = await run(
      BINS.svc,
      ["transfer", "receive", "--dir", dir, "--port", String(busyPort)],
      env,
    );
    expectClean(svcTaken, 1);
    expect(svcTaken.stderr).toBe(
      `svc: error: port ${busyPort} is in use (set --port or SVC_TRANSFER_PORT)\n`,
    );
    expect(existsSync(dir)).toBe(false);
    const receiving = await run(
      BINS.svcTransfer,
      ["receive", "--dir", fresh("transfer-inbox"), "--port", "0"],
      env,
      { signal: "SIGTERM", ready: (out) => out.stderr.includes("receiving for") },
    );
    expectClean(receiving, 0);
  });

  it("svc-kt: a bad argument (2), a busy port (1), SIGINT while witnessing (0)", async () => {
    expectClean(await run(BINS.svcKt, ["witness", "--log", "not-a-key"], {}), 2);
    const dir = fresh("witness-busy");
    const taken = await run(
      BINS.svcKt,
      ["witness", "--log", logKey, "--dir", dir, "--port", String(busyPort)],
      {},
    );
    expectClean(taken, 1);
    expect(taken.stderr).toBe(
      `svc-kt: error: EADDRINUSE: port ${busyPort} is in use (set --port)\n`,
    );
    expect(existsSync(dir)).toBe(false);
    const svcTaken = await run(
      BINS.svc,
      ["kt", "witness", "--log", logKey, "--dir", dir, "--port", String(busyPort)],
      {},
    );
    expectClean(svcTaken, 1);
    expect(svcTaken.stderr).toBe(
      `svc: error: EADDRINUSE: port ${busyPort} is in use (set --port)\n`,
    );
    const witnessing = await run(
      BINS.svcKt,
      ["witness", "--log", logKey, "--dir", fresh("witness"), "--port", "0"],
      {},
      { signal: "SIGINT", ready: (out) => out.stdout.includes("listening on") },
    );
    expectClean(witnessing, 0);
  });

  it("svc-db: a bad argument (2), a bad DATABASE_URL (2), a source that is missing (3)", async () => {
    expectClean(await run(BINS.svcDb, ["move", "--frm", "x"], {}), 2);
    expectClean(await run(BINS.svcDb, ["move", "--from", work], { DATABASE_URL: "mysql://x" }), 2);
    // It listens on nothing and runs no longer than its copy: a move that cannot begin.
    const missing = await run(
      BINS.svcDb,
      ["move", "--from", fresh("no-data"), "--to", "postgres://127.0.0.1:1/none"],
      {},
    );
    expectClean(missing, 3);
    expect(missing.stderr).toBe(
      `svc-db: error: no embedded database in ${fresh("no-data")}/pglite\n`,
    );
    const svcMissing = await run(
      BINS.svc,
      ["db", "move", "--from", fresh("no-data"), "--to", "postgres://127.0.0.1:1/none"],
      {},
    );
    expectClean(svcMissing, 3);
    expect(svcMissing.stderr).toBe(
      `svc: error: no embedded database in ${fresh("no-data")}/pglite\n`,
    );
  });

  it("the prekey server: a bad variable (2), a busy port (1, nothing made), SIGTERM (0)", async () => {
    expectClean(await run(BINS.prekeyServer, [], { SVC_PORT: "http" }), 2);
    const dataDir = fresh("prekey-busy");
    const taken = await run(BINS.prekeyServer, [], {
      SVC_PORT: String(busyPort),
      SVC_DATA_DIR: dataDir,
    });
    expectClean(taken, 1);
    expect(taken.stderr).toBe(`failed to start: port ${busyPort} is in use (set SVC_PORT)\n`);
    expect(existsSync(dataDir)).toBe(false);
    const serving = await run(
      BINS.prekeyServer,
      [],
      { SVC_PORT: "0", SVC_DATA_DIR: fresh("prekey") },
      { signal: "SIGTERM", ready: (out) => out.stdout.includes('"listening"') },
    );
    expectClean(serving, 0);
  });

  it("the peer-transfer server: a bad variable (2), a busy port (1, nothing made), SIGINT (0)", async () => {
    expectClean(await run(BINS.peerTransfer, [], { SVC_TRANSFER_STORE: "s3" }), 2);
    const env = { SVC_SERVER: server.url, SVC_HOME: home };
    const taken = await run(BINS.peerTransfer, [], {
      ...env,
      SVC_TRANSFER_PORT: String(busyPort),
      SVC_TRANSFER_DIR: fresh("peer-busy-received"),
      SVC_TRANSFER_DATA_DIR: fresh("peer-busy-db"),
    });
    expectClean(taken, 1);
    expect(taken.stderr).toBe(
      `failed to start: port ${busyPort} is in use (set SVC_TRANSFER_PORT)\n`,
    );
    expect((await readdir(work)).filter((name) => name.startsWith("peer-busy"))).toEqual([]);
    const serving = await run(
      BINS.peerTransfer,
      [],
      {
        ...env,
        SVC_TRANSFER_PORT: "0",
        SVC_TRANSFER_DIR: fresh("peer-received"),
        SVC_TRANSFER_DATA_DIR: fresh("peer-db"),
      },
      { signal: "SIGINT", ready: (out) => out.stdout.includes('"listening"') },
    );
    expectClean(serving, 0);
  });

  it("the chat example: a bad variable (2), a busy port (1), SIGINT (0)", async () => {
    expectClean(await run(BINS.chat, [], { SVC_PORT: "http" }), 2);
    const taken = await run(BINS.chat, [], {
      SVC_PORT: String(busyPort),
      SVC_DATA_DIR: fresh("chat-busy"),
    });
    expectClean(taken, 1);
    expect(taken.stderr).toBe(`chat: port ${busyPort} is in use (set SVC_PORT)\n`);
    expect(existsSync(fresh("chat-busy"))).toBe(false);
    const serving = await run(
      BINS.chat,
      [],
      { SVC_PORT: "0", SVC_DATA_DIR: fresh("chat") },
      { signal: "SIGINT", ready: (out) => out.stdout.includes("Ctrl-C stops") },
    );
    expectClean(serving, 0);
  });
});
