import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectEachLogged, registerIdentity } from "./support/identity-registrations.js";
import { type Closer, runClosers, startServerProcess } from "./support/server-process.js";
import { waitFor } from "./support/wait.js";

const closers: Closer[] = [];
afterAll(() => runClosers(closers));

const WORKERS = 4;

interface Sth {
  treeSize: number;
  rootHash: string;
}

/**
 * The default deployment, the embedded database on disk: the server killed with SIGKILL while
 * identities register (each a prekey transaction and a key-transparency append), then started
 * again on the same data directory. docs/operations.md, "Faults".
 */
describe("the embedded database, server killed under registrations", () => {
  it("keeps every acknowledged identity and its leaf, and the log's history", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "svc-fault-embedded-"));
    closers.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = { SVC_DATA_DIR: dataDir, SVC_RATE_LIMIT: "off" };
    const first = await startServerProcess(closers, env);

    const acknowledged: string[] = [];
    let next = 0;
    let registering = true;
    const register = async () => {
      while (registering) {
        const address = `killed-${next++}:1`;
        try {
          if ((await registerIdentity(first.url, address)) === 200) acknowledged.push(address);
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: WORKERS }, register);
    // Killed in mid-stream after a set number of acknowledgements rather than after a set time,
    // so that a slow machine kills under the same load as a fast one.
    await waitFor(() => acknowledged.length >= 50, 60_000, "50 acknowledged registrations");
    const seen = await latestSth(first.url);
    const atSeen = acknowledged.length;
    await waitFor(() => acknowledged.length >= atSeen + 10, 30_000, "10 more after the STH read");
    await first.stop("SIGKILL");
    registering = false;
    await Promise.all(workers);

    const second = await startServerProcess(closers, env);
    console.info(JSON.stringify({ acknowledged: acknowledged.length, sizeSeen: seen.treeSize }));
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);
    // The head a client saw before the kill is still the log's head of that size.
    const again = await fetch(`${second.url}/v1/kt/sth/${seen.treeSize}`);
    expect(again.status).toBe(200);
    expect(((await again.json()) as Sth).rootHash).toBe(seen.rootHash);
    // One leaf per acknowledged identity at least (an append may have committed unanswered).
    expect((await latestSth(second.url)).treeSize).toBeGreaterThanOrEqual(acknowledged.length);
    await expectEachLogged(second.url, acknowledged);
  }, 90_000);
});

async function latestSth(url: string): Promise<Sth> {
  const res = await fetch(`${url}/v1/kt/sth`);
  expect(res.status).toBe(200);
  return (await res.json()) as Sth;
}
