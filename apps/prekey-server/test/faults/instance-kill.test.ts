import { envelope, InboxClient, msgIdOf, type Party, party } from "@svc/test-client";
import { afterAll, describe, expect, it } from "vitest";
import {
  type BridgeClient,
  type Delivered,
  PresenceFeed,
  SseBridge,
  WsBridge,
} from "./support/bridge-clients.js";
import { canHavePostgres, postgresDatabase } from "./support/fault-database.js";
import { type Closer, runClosers, startServerProcess } from "./support/server-process.js";
import { SENDER } from "./support/steady-load.js";
import { sleep, waitFor } from "./support/wait.js";

const closers: Closer[] = [];
afterAll(() => runClosers(closers));

/**
 * Presence timings of this test; docs/operations.md states the bound for any setting: an address
 * whose bridges died with an instance is reported offline within expiry + heartbeat.
 */
const HEARTBEAT_MS = 500;
const EXPIRY_MS = 2000;
const PRESENCE_CONVERGES_MS = EXPIRY_MS + HEARTBEAT_MS;
/** Clients retry every 100 ms; a bridge is back on the other instance within this. */
const RECONNECT_WITHIN_MS = 3000;

interface User {
  address: string;
  owner: Party;
}
const user = (name: string): User => ({ address: `kill-${name}:1`, owner: party(`kill-${name}`) });
const [sseUser, wsUser, bothUser, gone, watcher] = ["sse", "ws", "both", "gone", "watcher"].map(
  user,
) as [User, User, User, User, User];

describe.skipIf(!canHavePostgres())("kill -9 of one of two instances on one PostgreSQL", () => {
  it("moves the bridges to the other instance and converges presence within expiry + heartbeat", async () => {
    const url = await postgresDatabase(closers);
    const env = {
      DATABASE_URL: url,
      SVC_RATE_LIMIT: "off",
      SVC_PRESENCE_HEARTBEAT_MS: String(HEARTBEAT_MS),
      SVC_PRESENCE_EXPIRY_MS: String(EXPIRY_MS),
    };
    const a = await startServerProcess(closers, env);
    const b = await startServerProcess(closers, env);
    const inbox = new InboxClient((path, init) => fetch(`${b.url}${path}`, init), Date.now);
    for (const { address, owner } of [sseUser, wsUser, bothUser, gone, watcher]) {
      expect((await inbox.register(address, owner)).status).toBe(200);
    }

    // Every bridge starts on A; the load balancer sends reconnects to B. The "gone" user's
    // client dies with A (it never reconnects), so its address must end up offline.
    const both = [a.url, b.url];
    const bridges: Array<{ user: User; client: BridgeClient & { delivered: Delivered[] } }> = [
      { user: sseUser, client: new SseBridge(both, sseUser.owner, sseUser.address) },
      { user: wsUser, client: new WsBridge(both, wsUser.owner, wsUser.address) },
      { user: bothUser, client: new SseBridge(both, bothUser.owner, bothUser.address) },
      { user: bothUser, client: new WsBridge(both, bothUser.owner, bothUser.address) },
    ];
    const goneClient = new WsBridge([a.url], gone.owner, gone.address);
    const watched = [sseUser, wsUser, bothUser, gone].map((u) => u.address);
    const feedOnA = new PresenceFeed(both, watcher.owner, watcher.address, watched);
    const feedOnB = new PresenceFeed([b.url], watcher.owner, watcher.address, watched);
    for (const client of [...bridges.map((x) => x.client), goneClient, feedOnA, feedOnB]) {
      closers.push(async () => client.close());
    }
    const allOnline = (feed: PresenceFeed) => watched.every((w) => feed.online.get(w) === true);
    await waitFor(
      () => bridges.every((x) => x.client.connectedTo === a.url) && goneClient.connects === 1,
      5000,
      "the bridges on A",
    );
    await waitFor(() => allOnline(feedOnA) && allOnline(feedOnB), 5000, "everyone online");

    // Deposits keep coming through B before, during and after the kill.
    const deposited = new Map<string, string[]>();
    const depositStatuses = new Set<number>();
    let depositing = true;
    const depositor = (async () => {
      for (let n = 0; depositing; n++) {
        for (const { address } of [sseUser, wsUser, bothUser]) {
          const bytes = envelope(n, 32);
          const res = await inbox.deposit(address, SENDER, bytes);
          await res.body?.cancel();
          depositStatuses.add(res.status);
          const list = deposited.get(address) ?? [];
          list.push(msgIdOf(bytes));
          deposited.set(address, list);
        }
        await sleep(50);
      }
    })();
    await sleep(500);

    const killed = performance.now();
    a.child.kill("SIGKILL");
    goneClient.close();
    await a.exited;

    // Each client is back, on B, within RECONNECT_WITHIN_MS.
    await waitFor(
      () => bridges.every((x) => x.client.connectedTo === b.url),
      RECONNECT_WITHIN_MS,
      "the bridges on B",
    );
    const reconnectedMs = performance.now() - killed;
    await waitFor(() => feedOnA.connectedTo === b.url, RECONNECT_WITHIN_MS, "feed A on B");

    // Presence: the reconnected users stay online, the gone one goes offline, on both feeds.
    const converged = (feed: PresenceFeed) =>
      feed.online.get(gone.address) === false &&
      [sseUser, wsUser, bothUser].every((u) => feed.online.get(u.address) === true);
    await waitFor(
      () => converged(feedOnA) && converged(feedOnB),
      PRESENCE_CONVERGES_MS + 3000,
      "presence to converge",
    );
    const convergedMs = performance.now() - killed;
    // B's feed never showed a reconnected user offline: no flapping.
    const flaps = feedOnB.reports.filter(
      (r) => r.at > killed && !r.online && r.address !== gone.address,
    );
    expect(flaps).toEqual([]);

    await sleep(300);
    depositing = false;
    await depositor;
    expect(depositStatuses).toEqual(new Set([200]));
    // Every deposit reached every bridge of its address exactly once, across the move.
    await waitFor(
      () =>
        bridges.every(
          (x) => x.client.delivered.length >= (deposited.get(x.user.address)?.length ?? 0),
        ),
      5000,
      "delivery of every deposit",
    );
    for (const { user: u, client } of bridges) {
      const got = client.delivered.map((d) => d.msgId);
      expect(got).toEqual(deposited.get(u.address));
    }

    console.info(
      JSON.stringify({
        reconnectedMs: Math.round(reconnectedMs),
        presenceConvergedMs: Math.round(convergedMs),
      }),
    );
    expect(reconnectedMs).toBeLessThan(RECONNECT_WITHIN_MS);
    // Slack for the heartbeat timer and the statements of a busy machine.
    expect(convergedMs).toBeLessThan(PRESENCE_CONVERGES_MS + 1500);
    expect(b.alive()).toBe(true);
  }, 60_000);
});
