import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { notPrivateUnder } from "@svc/node-kit";
import { afterAll, describe, expect, it } from "vitest";
import { registerIdentity } from "./faults/support/identity-registrations.js";
import { type Closer, runClosers, startServerProcess } from "./faults/support/server-process.js";

const closers: Closer[] = [];
afterAll(() => runClosers(closers));

/**
 * The data directory of the default deployment (the embedded database, generated KT keys) holds
 * secrets: docs/security.md, "Files on disk".
 */
describe("the server's data directory", () => {
  it("is 0700 directories and 0600 files, started with umask 000", async () => {
    const parent = await mkdtemp(join(tmpdir(), "svc-private-data-"));
    closers.push(() => rm(parent, { recursive: true, force: true }));
    const dataDir = join(parent, "data");
    // The child inherits this umask, the most permissive there is.
    const umask = process.umask(0);
    let server: Awaited<ReturnType<typeof startServerProcess>>;
    try {
      // Empty KT keys: the server generates its own and keeps them in the data directory.
      server = await startServerProcess(closers, {
        SVC_DATA_DIR: dataDir,
        SVC_KT_SIGNING_KEY: "",
        SVC_KT_VRF_KEY: "",
      });
    } finally {
      process.umask(umask);
    }
    for (let i = 0; i < 5; i++)
      expect(await registerIdentity(server.url, `files-${i}:1`)).toBe(200);
    expect(await notPrivateUnder(dataDir)).toEqual([]);
    expect(await server.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    expect(await notPrivateUnder(dataDir)).toEqual([]);
  }, 90_000);
});
