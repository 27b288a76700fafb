import { openStorage, type Storage } from "@svc/db";
import { createTestDatabase, hasTestPostgres, until } from "@svc/db/testing";
import type { DepositNotice } from "@svc/inbox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BridgeHub } from "./hub.js";
import { type PostgresAdapterOptions, postgresAdapter } from "./postgres-adapter.js";
import { bridgeHubMigrations } from "./schema.js";
import { MemorySource, RecordingPresenceSink, RecordingSink } from "./test-support/fakes.js";
import type { PresenceChange } from "./types.js";

const migrations = [bridgeHubMigrations];

describe.runIf(hasTestPostgres())("postgres adapter (two instances, one database)", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  const storages: Storage[] = [];
  const hubs: BridgeHub[] = [];
  const source = new MemorySource();

  beforeEach(async () => {
    database = await createTestDatabase();
  });
  afterEach(async () => {
    for (const hub of hubs.splice(0)) await hub.close();
    for (const storage of storages.splice(0)) await storage.close();
    await database.drop();
  });

  async function instance(options: PostgresAdapterOptions & { heartbeatMs?: number } = {}) {
    const storage = await openStorage({ databaseUrl: database.url, poolSize: 4, migrations });
    storages.push(storage);
    const crossings: PresenceChange[] = [];
    const hub = new BridgeHub({
      source,
      adapter: postgresAdapter(storage, options),
      onCrossing: (change) => crossings.push(change),
      heartbeatMs: options.heartbeatMs,
    });
    await hub.start();
    hubs.push(hub);
    return { hub, storage, crossings };
  }

  it("wakes a bridge on B for a deposit committed on A", async () => {
    const a = await instance();
    const b = await instance();
    const sink = new RecordingSink();
    b.hub.openBridge({ address: "alice", since: 0, transport: "sse", sink });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    source.deposit("alice", a.hub);
    await until(() => sink.received.length === 1, 1000);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("tells the other instance of deposits made together in one statement", async () => {
    const a = await instance();
    const b = await instance();
    const { counting, statements } = countingNotifies(a.storage);
    const announcing = new BridgeHub({ source, adapter: postgresAdapter(counting) });
    await announcing.start();
    hubs.push(announcing);
    const addresses = Array.from({ length: 40 }, (_, i) => `many-${i}`);
    const sinks = addresses.map((address) => {
      const sink = new RecordingSink();
      b.hub.openBridge({ address, since: 0, transport: "sse", sink });
      return sink;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const address of addresses) source.deposit(address, announcing);
    source.deposit("many-0", announcing); // twice in one statement: one notification
    await until(() => sinks.every((sink, i) => sink.received.length === (i === 0 ? 2 : 1)));
    expect(statements).toEqual([40]);
  });

  it("leaves the announcement to a deposit transaction that sent the deposit notice", async () => {
    const a = await instance();
    const b = await instance();
    const { counting, statements } = countingNotifies(a.storage);
    const adapter = postgresAdapter(counting);
    const announcing = new BridgeHub({ source, adapter });
    await announcing.start();
    hubs.push(announcing);
    const here = new RecordingSink();
    const there = new RecordingSink();
    announcing.openBridge({ address: "frank", since: 0, transport: "ws", sink: here });
    b.hub.openBridge({ address: "frank", since: 0, transport: "sse", sink: there });
    await until(() => here.ended === undefined && there.ended === undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const notice = adapter.depositNotice as DepositNotice;
    source.deposit("frank", announcing, true);
    // What the inbox's deposit transaction sent at commit, from a connection of its own. After
    // the deposit: B, woken before the blob exists, would read nothing and wait for good.
    await a.storage.notify(notice.channel, [`${notice.prefix}frank`]);
    await until(() => here.received.length === 1 && there.received.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect([here.received.length, there.received.length]).toEqual([1, 1]);
    expect(statements).toEqual([]);
  });

  it("delivers its own deposits at once, and once, and wakes the other instance", async () => {
    const a = await instance();
    const b = await instance();
    const sink = new RecordingSink();
    const before = source.queries;
    a.hub.openBridge({ address: "carol", since: 0, transport: "ws", sink });
    await until(() => source.queries === before + 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    source.deposit("carol", a.hub);
    // Synchronous and without a query: handed over before the notification has left A.
    expect(sink.received).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 100)); // the notification comes back
    const onB = new RecordingSink();
    b.hub.openBridge({ address: "carol", since: 1001, transport: "sse", sink: onB });
    await until(() => source.queries === before + 2);
    await new Promise((resolve) => setTimeout(resolve, 20));
    source.deposit("carol", b.hub);
    await until(() => sink.received.length === 2 && onB.received.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    // A: open, B's deposit (woken by NOTIFY); B: open. A ignored its own notification.
    expect(source.queries).toBe(before + 3);
    expect(sink.received.map((e) => e.receivedAt)).toEqual([1001, 1002]);
  });

  it("reports a crossing once, from the instance that made it, and relays it everywhere", async () => {
    const a = await instance();
    const b = await instance();
    const watcher = new RecordingPresenceSink();
    b.hub.watchPresence(["bob"], watcher);
    await until(() => watcher.snapshots.length === 1);
    const onA = a.hub.openBridge({
      address: "bob",
      since: 0,
      transport: "ws",
      sink: new RecordingSink(),
    });
    await until(() => a.crossings.length === 1);
    const onB = b.hub.openBridge({
      address: "bob",
      since: 0,
      transport: "sse",
      sink: new RecordingSink(),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    onA.close();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(a.crossings.map((c) => c.online)).toEqual([true]);
    expect(b.crossings).toEqual([]);
    onB.close();
    await until(() => b.crossings.length === 1);
    expect(b.crossings.map((c) => c.online)).toEqual([false]);
    await until(() => watcher.changes.length === 2);
    expect(watcher.changes.map((c) => [c.address, c.online])).toEqual([
      ["bob", true],
      ["bob", false],
    ]);
  });

  it("reaps a dead instance's bridges once its heartbeat expires", async () => {
    // An expiry well above a's own heartbeat: a loaded machine that delays a's heartbeats must
    // not have a reap itself.
    const a = await instance({ instanceExpiryMs: 1500, heartbeatMs: 100 });
    const crashed = await instance({ heartbeatMs: 60_000 });
    const watcher = new RecordingPresenceSink();
    a.hub.watchPresence(["carol"], watcher);
    crashed.hub.openBridge({
      address: "carol",
      since: 0,
      transport: "ws",
      sink: new RecordingSink(),
    });
    await until(() => watcher.changes.length === 1);
    // A crash: the instance vanishes without withdrawing its presence.
    hubs.splice(hubs.indexOf(crashed.hub), 1);
    await crashed.storage.close();
    storages.splice(storages.indexOf(crashed.storage), 1);
    await until(() => watcher.changes.length === 2, 10_000);
    expect(watcher.changes.map((c) => c.online)).toEqual([true, false]);
    expect(a.crossings.map((c) => [c.address, c.online])).toEqual([["carol", false]]);
  });

  it("comes back under a new id after being reaped while alive", async () => {
    const a = await instance({ instanceExpiryMs: 300, heartbeatMs: 100 });
    const slow = await instance({ heartbeatMs: 1000 });
    const watcher = new RecordingPresenceSink();
    a.hub.watchPresence(["dora"], watcher);
    slow.hub.openBridge({ address: "dora", since: 0, transport: "sse", sink: new RecordingSink() });
    // Reaped after 300 ms (disconnected), then its own heartbeat at 1 s re-registers it. It keeps
    // missing the 300 ms expiry, so later flips may follow: the first three tell the story.
    await until(() => watcher.changes.length >= 3, 5000);
    expect(watcher.changes.slice(0, 3).map((c) => c.online)).toEqual([true, false, true]);
  });

  it("re-queries everything when the listener reconnects", async () => {
    const storage = await openStorage({ databaseUrl: database.url, poolSize: 2, migrations });
    storages.push(storage);
    const reconnects: Array<() => void> = [];
    const flaky: Storage = {
      ...storage,
      listen: (channel: string, onPayload: (payload: string) => void, ...rest: unknown[]) => {
        const onListen = rest[0] as (() => void) | undefined;
        if (onListen) reconnects.push(onListen);
        onListen?.();
        return storage.listen(channel, onPayload);
      },
      notify: async () => {}, // notifications are lost
    } as Storage;
    const hub = new BridgeHub({ source, adapter: postgresAdapter(flaky) });
    await hub.start();
    hubs.push(hub);
    const sink = new RecordingSink();
    hub.openBridge({ address: "erin", since: 0, transport: "sse", sink });
    await new Promise((resolve) => setTimeout(resolve, 50));
    source.deposit("erin"); // committed on another instance, whose notification is lost
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sink.received).toHaveLength(0);
    reconnects[0]?.();
    await until(() => sink.received.length === 1);
  });
});

/** `storage`, recording the payload count of each NOTIFY statement it sends. */
function countingNotifies(storage: Storage): { counting: Storage; statements: number[] } {
  const statements: number[] = [];
  const counting: Storage = {
    ...storage,
    notify: (channel, payloads) => {
      statements.push(payloads.length);
      return storage.notify(channel, payloads);
    },
  };
  return { counting, statements };
}
