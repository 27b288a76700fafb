import { envelope, InboxClient, msgIdOf, party } from "@svc/test-client";
import { afterAll, describe, expect, it } from "vitest";
import { SseBridge } from "./support/bridge-clients.js";
import { postgresBinaries, startPrivatePostgres } from "./support/private-postgres.js";
import {
  type Closer,
  runClosers,
  type ServerProcess,
  startServerProcess,
} from "./support/server-process.js";
import { type Outcome, queuedMsgIds, SENDER, SteadyLoad } from "./support/steady-load.js";
import { sleep, waitFor } from "./support/wait.js";

const pgBin = postgresBinaries();
const closers: Closer[] = [];
afterAll(() => runClosers(closers));

/** The bounds this test holds the server to (docs/operations.md, "Faults"). */
const HEALTH_503_WITHIN_MS = 2000;
const FAIL_FAST_MS = 2000;
const RECOVERY_WITHIN_MS = 5000;
const OUTAGE_MS = 4000;

const WATCHED = "pg-restart-watched:1";
const watchedOwner = party("pg-restart-watched");

describe.skipIf(pgBin === undefined)("PostgreSQL stopped and started under load", () => {
  it("answers 503 at once while it is down, recovers without a restart, keeps every acknowledged write", async () => {
    const pg = await startPrivatePostgres(pgBin as string);
    closers.push(() => pg.destroy());
    const env = { DATABASE_URL: pg.url, SVC_RATE_LIMIT: "off" };
    // A takes the load; B holds a bridge, so that recovery includes B's LISTEN connection.
    const a = await startServerProcess(closers, env);
    const b = await startServerProcess(closers, env);
    const load = new SteadyLoad(() => a.url, { workers: 4, label: "pg-restart" });
    await load.prepare();
    const watched = new InboxClient((path, init) => fetch(`${a.url}${path}`, init), Date.now);
    expect((await watched.register(WATCHED, watchedOwner)).status).toBe(200);
    const bridge = new SseBridge([b.url], watchedOwner, WATCHED);
    closers.push(async () => bridge.close());
    await waitFor(() => bridge.connects === 1, 5000, "the bridge on B");
    let probes = 0;
    const probe = async () => {
      const bytes = envelope(probes++, 32);
      const res = await watched.deposit(WATCHED, SENDER, bytes);
      return { status: res.status, msgId: msgIdOf(bytes) };
    };
    expect((await probe()).status).toBe(200);
    await waitFor(() => bridge.delivered.length === 1, 2000, "the first probe on B's bridge");

    load.start();
    await sleep(1500);

    // Stop PostgreSQL: /health and /ready go 503 within 2 s, every request fails fast with 503.
    const stopIssued = performance.now();
    await pg.stop();
    const stopped = performance.now();
    const stoppedAt = Date.now();
    const health = await firstAnswer(a, "/health", 503, HEALTH_503_WITHIN_MS + 1000);
    const ready = await firstAnswer(a, "/ready", 503, HEALTH_503_WITHIN_MS + 1000);
    expect(health.afterMs).toBeLessThan(HEALTH_503_WITHIN_MS);
    expect(ready.afterMs).toBeLessThan(HEALTH_503_WITHIN_MS);
    expect(health.body).toEqual({ status: "error", service: "svc-prekey-server" });
    expect(ready.body).toMatchObject({ status: "error", checks: { storage: "error" } });
    await sleep(OUTAGE_MS - (performance.now() - stopped));

    // Start it again: without a restart, the server serves within 5 s (and B's bridge hears A).
    const restartAt = Date.now();
    await pg.start();
    const started = performance.now();
    let delivered = bridge.delivered.length;
    await waitFor(
      async () => {
        const [readyA, readyB] = await Promise.all([statusOf(a, "/ready"), statusOf(b, "/ready")]);
        if (readyA !== 200 || readyB !== 200) return false;
        const { status, msgId } = await probe();
        if (status !== 200) return false;
        // Delivered over NOTIFY to B's bridge (reconnected if the outage ended it).
        const deadline = performance.now() + 1000;
        while (performance.now() < deadline) {
          if (bridge.delivered.slice(delivered).some((d) => d.msgId === msgId)) return true;
          await sleep(20);
        }
        delivered = bridge.delivered.length;
        return false;
      },
      RECOVERY_WITHIN_MS + 5000,
      "recovery",
    );
    const recoveryMs = performance.now() - started;
    const recoveredAt = Date.now();
    await sleep(1500);
    await load.stop();

    // A request may wait for the driver's next connection attempt (0.5 s at most) and find
    // PostgreSQL back: the last moments before the restart are left out.
    const during = load.between(stoppedAt, restartAt - 600);
    const report = summarize(load.outcomes, during, recoveryMs, stopped - stopIssued);
    console.info(
      JSON.stringify({
        ...report,
        health503Ms: Math.round(health.afterMs),
        ready503Ms: Math.round(ready.afterMs),
      }),
    );

    // Every request made while PostgreSQL was down was refused fast, with a 503 ErrorResponse.
    expect(new Set(during.map((o) => o.op))).toEqual(
      new Set(["deposit", "fetch", "ack", "bundle"]),
    );
    for (const outcome of during) {
      expect(outcome).toMatchObject({
        status: 503,
        refusal: { name: "Unavailable", code: "SVC_UNAVAILABLE", message: expect.any(String) },
      });
      expect(outcome.ms).toBeLessThan(FAIL_FAST_MS);
    }
    // Outside the outage only answers; never a 500, a reset or a hang.
    for (const outcome of load.outcomes) {
      // The outcome in the message: a failure says which request, when, and what it got.
      const seen = JSON.stringify({ ...outcome, stoppedAt, restartAt, recoveredAt });
      expect([200, 404, 503], seen).toContain(outcome.status);
      expect(outcome.ms, seen).toBeLessThan(FAIL_FAST_MS + 1000);
    }
    expect(load.between(recoveredAt, Number.POSITIVE_INFINITY).every((o) => o.status < 500)).toBe(
      true,
    );
    expect(recoveryMs).toBeLessThan(RECOVERY_WITHIN_MS);

    // Nothing acknowledged is lost or repeated.
    for (const [address, ledger] of load.ledgers) {
      const queued = await queuedMsgIds(a.url, address);
      expect(new Set(queued).size).toBe(queued.length);
      for (const msgId of queued) {
        expect(ledger.attempted.has(msgId)).toBe(true);
        expect(ledger.acked.has(msgId)).toBe(false);
      }
      for (const msgId of ledger.deposited) {
        if (!ledger.acked.has(msgId)) expect(queued).toContain(msgId);
      }
      expect(ledger.deposited.size).toBeGreaterThan(0);
    }
    for (const keyIds of load.handedOut.values()) {
      expect(new Set(keyIds).size).toBe(keyIds.length);
    }
    const bridged = bridge.delivered.map((d) => d.msgId);
    expect(new Set(bridged).size).toBe(bridged.length);

    // The same two processes all along.
    expect(a.alive() && b.alive()).toBe(true);
    expect(internalErrors(a)).toEqual([]);
    expect(internalErrors(b)).toEqual([]);
  }, 90_000);
});

/** Polls `path` until it answers `status`; how long after the call that took, and the body. */
async function firstAnswer(server: ServerProcess, path: string, status: number, withinMs: number) {
  const started = performance.now();
  for (;;) {
    const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(withinMs) });
    const body: unknown = await res.json();
    if (res.status === status) return { afterMs: performance.now() - started, body };
    if (performance.now() - started > withinMs) {
      throw new Error(`${path} still answers ${res.status} after ${withinMs} ms`);
    }
    await sleep(50);
  }
}

async function statusOf(server: ServerProcess, path: string): Promise<number> {
  try {
    const res = await fetch(`${server.url}${path}`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

/** Requests the server logged as answered 500. */
function internalErrors(server: ServerProcess) {
  return server.logs().filter((line) => line.status === 500 || line.message === "unhandled error");
}

function summarize(all: Outcome[], during: Outcome[], recoveryMs: number, stopMs: number) {
  const max = (outcomes: Outcome[]) => Math.round(Math.max(0, ...outcomes.map((o) => o.ms)));
  return {
    requests: all.length,
    duringOutage: during.length,
    slowestDuringOutageMs: max(during),
    slowestMs: max(all),
    pgStopMs: Math.round(stopMs),
    recoveryMs: Math.round(recoveryMs),
  };
}
