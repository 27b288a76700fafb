import { until } from "@svc/db/testing";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { AdapterSink, BridgeAdapter } from "./adapter.js";
import { BridgeHub } from "./hub.js";
import { inProcessAdapter } from "./in-process-adapter.js";
import { MAX_UNSENT_BYTES } from "./push-bridge.js";
import { MemorySource, RecordingPresenceSink, RecordingSink } from "./test-support/fakes.js";
import type { PresenceChange } from "./types.js";

const hubs: BridgeHub[] = [];
afterEach(async () => {
  for (const hub of hubs.splice(0)) await hub.close();
});

async function startHub(source = new MemorySource(), adapter: BridgeAdapter = inProcessAdapter()) {
  const crossings: PresenceChange[] = [];
  const errors: string[] = [];
  const hub = new BridgeHub({
    source,
    adapter,
    onCrossing: (change) => crossings.push(change),
    onError: (_error, during) => errors.push(during),
  });
  await hub.start();
  hubs.push(hub);
  return { hub, source, crossings, errors };
}

describe("push bridges", () => {
  it("replays the backlog after `since`, then delivers live envelopes", async () => {
    const { hub, source } = await startHub();
    for (let i = 0; i < 5; i++) source.deposit("alice");
    const sink = new RecordingSink();
    hub.openBridge({ address: "alice", since: 1002, transport: "sse", sink });
    await until(() => sink.received.length === 3);
    source.deposit("alice", hub);
    source.deposit("bob", hub);
    await until(() => sink.received.length === 4);
    expect(sink.received.map((e) => e.receivedAt)).toEqual([1003, 1004, 1005, 1006]);
  });

  it("never skips or repeats an envelope across the hand-over, whatever the interleaving", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 150 }),
        fc.array(fc.record({ pause: fc.integer({ min: 0, max: 3 }), remote: fc.boolean() }), {
          maxLength: 40,
        }),
        fc.integer({ min: 0, max: 2 }),
        async (backlog, steps, delayMs) => {
          const { hub, source } = await startHub();
          source.delayMs = delayMs;
          for (let i = 0; i < backlog; i++) source.deposit("alice");
          const sink = new RecordingSink();
          const handle = hub.openBridge({ address: "alice", since: 0, transport: "ws", sink });
          // Local deposits are handed over or wake the bridge; remote ones (committed on another
          // instance, notification not yet here) are only found by a later read.
          for (const { pause, remote } of [...steps, { pause: 0, remote: false }]) {
            source.deposit("alice", remote ? undefined : hub);
            if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
          }
          const total = backlog + steps.length + 1;
          await until(() => sink.received.length >= total);
          await new Promise((resolve) => setTimeout(resolve, 10));
          const seen = sink.received.map((e) => e.receivedAt);
          expect(seen).toEqual(Array.from({ length: total }, (_, i) => 1001 + i));
          handle.close();
          await hub.close();
        },
      ),
      { numRuns: 25 },
    );
  });

  it("hands a local deposit to a caught-up bridge at once, once, without a query", async () => {
    const { hub, source } = await startHub();
    const sink = new RecordingSink();
    hub.openBridge({ address: "alice", since: 0, transport: "sse", sink });
    await until(() => source.queries === 1);
    await new Promise((resolve) => setTimeout(resolve, 5)); // the backlog query has finished
    source.deposit("alice", hub);
    expect(sink.received.map((e) => e.receivedAt)).toEqual([1001]); // synchronously
    source.deposit("alice", hub);
    source.deposit("alice", hub);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sink.received.map((e) => e.receivedAt)).toEqual([1001, 1002, 1003]);
    expect(source.queries).toBe(1);
  });

  it("reads instead when the bridge is behind the deposit's previous receivedAt", async () => {
    const { hub, source } = await startHub();
    const sink = new RecordingSink();
    hub.openBridge({ address: "alice", since: 0, transport: "sse", sink });
    await until(() => source.queries === 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    source.deposit("alice"); // 1001, committed elsewhere; its notification has not come yet
    source.deposit("alice", hub); // 1002 follows 1001, which this bridge has not delivered
    expect(sink.received).toEqual([]);
    await until(() => sink.received.length === 2);
    expect(sink.received.map((e) => e.receivedAt)).toEqual([1001, 1002]);
    expect(source.queries).toBe(2);
    source.deposit("alice", hub); // caught up again: handed over
    expect(sink.received.map((e) => e.receivedAt)).toEqual([1001, 1002, 1003]);
    expect(source.queries).toBe(2);
  });

  it("neither repeats nor skips when a hand-off overtakes a query in flight", async () => {
    const { hub, source } = await startHub();
    source.delayMs = 20;
    const sink = new RecordingSink();
    hub.openBridge({ address: "alice", since: 0, transport: "ws", sink });
    // The backlog query (from 0) is in flight and will return everything below.
    source.deposit("alice", hub); // 1001: the next envelope, handed over at once
    expect(sink.received.map((e) => e.receivedAt)).toEqual([1001]);
    source.deposit("alice"); // 1002, committed elsewhere
    source.deposit("alice", hub); // 1003 follows 1002: a wake-up, coalesced into one more query
    await until(() => source.queries === 2);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(sink.received.map((e) => e.receivedAt)).toEqual([1001, 1002, 1003]);
  });

  it("wakes a long-poll for a local deposit", async () => {
    const { hub, source } = await startHub();
    const pending = hub.poll("alice", 0, 25_000);
    await until(() => source.queries === 1);
    source.deposit("alice", hub);
    expect((await pending).map((e) => e.receivedAt)).toEqual([1001]);
  });

  it("cuts off a consumer that is more than 1 MiB behind, and forgets it", async () => {
    const { hub, source, crossings } = await startHub();
    const sink = new RecordingSink();
    hub.openBridge({ address: "alice", since: 0, transport: "sse", sink });
    source.deposit("alice", hub);
    await until(() => sink.received.length === 1);
    sink.unsent = MAX_UNSENT_BYTES + 1;
    source.deposit("alice", hub);
    await until(() => sink.ended !== undefined);
    expect(sink.ended).toBe("behind");
    expect(sink.received).toHaveLength(1);
    expect(hub.liveBridges()).toBe(0);
    await until(() => crossings.length === 2);
    expect(crossings.map((c) => c.online)).toEqual([true, false]);
  });

  it("sums what its connections have not sent yet, and names the largest", async () => {
    const { hub } = await startHub();
    const [a, b] = [new RecordingSink(), new RecordingSink()];
    const feed = new RecordingPresenceSink();
    hub.openBridge({ address: "alice", since: 0, transport: "sse", sink: a });
    const handle = hub.openBridge({ address: "bob", since: 0, transport: "ws", sink: b });
    hub.watchPresence(["alice"], feed);
    a.unsent = 300;
    b.unsent = 5000;
    feed.unsent = 70;
    expect(hub.unsentBytes()).toEqual({ total: 5370, largest: 5000 });
    handle.close();
    expect(hub.unsentBytes()).toEqual({ total: 370, largest: 300 });
  });

  it("ends a bridge whose query fails, reporting the error", async () => {
    const { hub, source, errors } = await startHub();
    source.failNext = new Error("database down");
    const sink = new RecordingSink();
    hub.openBridge({ address: "alice", since: 0, transport: "sse", sink });
    await until(() => sink.ended !== undefined);
    expect(sink.ended).toBe("error");
    expect(errors).toContain("delivering envelopes");
    expect(hub.liveBridges()).toBe(0);
  });

  it("re-queries every bridge when the adapter reports lost notifications", async () => {
    let adapterSink: AdapterSink | undefined;
    const inner = inProcessAdapter();
    const reconnecting: BridgeAdapter = {
      ...inner,
      async start(sink) {
        adapterSink = sink;
        await inner.start(sink);
      },
    };
    const { hub, source } = await startHub(new MemorySource(), reconnecting);
    const sink = new RecordingSink();
    hub.openBridge({ address: "alice", since: 0, transport: "ws", sink });
    await until(() => source.queries === 1);
    source.deposit("alice"); // committed on another instance, whose notification is lost
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sink.received).toHaveLength(0);
    adapterSink?.resync();
    await until(() => sink.received.length === 1);
  });

  it("ends every bridge on close and refuses new ones", async () => {
    const { hub } = await startHub();
    const sink = new RecordingSink();
    hub.openBridge({ address: "alice", since: 0, transport: "sse", sink });
    await hub.close();
    expect(sink.ended).toBe("shutdown");
    const late = new RecordingSink();
    hub.openBridge({ address: "alice", since: 0, transport: "sse", sink: late });
    expect(late.ended).toBe("shutdown");
    expect(hub.liveBridges()).toBe(0);
  });
});

describe("long-poll", () => {
  it("returns pending envelopes at once, at most 100", async () => {
    const { hub, source } = await startHub();
    for (let i = 0; i < 120; i++) source.deposit("alice");
    const batch = await hub.poll("alice", 1010, 25_000);
    expect(batch).toHaveLength(100);
    expect(batch[0]?.receivedAt).toBe(1011);
  });

  it("holds until a deposit arrives", async () => {
    const { hub, source } = await startHub();
    const pending = hub.poll("alice", 0, 25_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    source.deposit("alice", hub);
    expect((await pending).map((e) => e.receivedAt)).toEqual([1001]);
  });

  it("returns an empty batch after the timeout, and at once on close", async () => {
    const { hub } = await startHub();
    const started = Date.now();
    expect(await hub.poll("alice", 0, 50)).toEqual([]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    const held = hub.poll("alice", 0, 25_000);
    await new Promise((resolve) => setTimeout(resolve, 10));
    await hub.close();
    expect(await held).toEqual([]);
  });

  it("returns at once when aborted", async () => {
    const { hub } = await startHub();
    const controller = new AbortController();
    const held = hub.poll("alice", 0, 25_000, controller.signal);
    setTimeout(() => controller.abort(), 10);
    expect(await held).toEqual([]);
  });

  it("does not count for presence", async () => {
    const { hub, crossings } = await startHub();
    await hub.poll("alice", 0, 20);
    expect(crossings).toEqual([]);
  });
});

describe("presence", () => {
  it("collapses parallel bridges of one address into one connect/disconnect pair", async () => {
    const { hub, crossings } = await startHub();
    const a = hub.openBridge({
      address: "alice",
      since: 0,
      transport: "ws",
      sink: new RecordingSink(),
    });
    const b = hub.openBridge({
      address: "alice",
      since: 0,
      transport: "sse",
      sink: new RecordingSink(),
    });
    await until(() => crossings.length === 1);
    a.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(crossings.map((c) => c.online)).toEqual([true]);
    b.close();
    await until(() => crossings.length === 2);
    expect(crossings.map((c) => [c.address, c.online])).toEqual([
      ["alice", true],
      ["alice", false],
    ]);
  });

  it("snapshots watched addresses, then relays changes of watched addresses only", async () => {
    const { hub } = await startHub();
    hub.openBridge({ address: "bob", since: 0, transport: "ws", sink: new RecordingSink() });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const sink = new RecordingPresenceSink();
    hub.watchPresence(["bob", "carol", "bob"], sink);
    await until(() => sink.snapshots.length === 2);
    expect(sink.snapshots.map((s) => [s.address, s.online])).toEqual([
      ["bob", true],
      ["carol", false],
    ]);
    hub.openBridge({ address: "dave", since: 0, transport: "ws", sink: new RecordingSink() });
    const carol = hub.openBridge({
      address: "carol",
      since: 0,
      transport: "sse",
      sink: new RecordingSink(),
    });
    await until(() => sink.changes.length === 1);
    carol.close();
    await until(() => sink.changes.length === 2);
    expect(sink.changes.map((c) => [c.address, c.online])).toEqual([
      ["carol", true],
      ["carol", false],
    ]);
  });

  it("tells which addresses have a live push bridge here or on another instance", async () => {
    const inner = inProcessAdapter();
    const asked: string[][] = [];
    const elsewhere: BridgeAdapter = {
      ...inner,
      async online(addresses) {
        asked.push([...addresses]);
        return new Set(addresses.filter((address) => address === "erin"));
      },
    };
    const { hub } = await startHub(new MemorySource(), elsewhere);
    const alice = hub.openBridge({
      address: "alice",
      since: 0,
      transport: "ws",
      sink: new RecordingSink(),
    });
    void hub.poll("carol", 0, 25_000);
    expect(await hub.liveAmong(["alice", "carol", "erin"])).toEqual(new Set(["alice", "erin"]));
    // The local count answers for alice; a long-poll does not make carol live.
    expect(asked).toEqual([["carol", "erin"]]);
    alice.close();
    expect(await hub.liveAmong(["alice"])).toEqual(new Set());
    expect(await hub.liveAmong([])).toEqual(new Set());
  });

  it("never repeats a change that raced with the snapshot", async () => {
    let release: (() => void) | undefined;
    const inner = inProcessAdapter();
    const slowSnapshot: BridgeAdapter = {
      ...inner,
      async online(addresses) {
        const online = await inner.online(addresses);
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return online;
      },
    };
    const { hub } = await startHub(new MemorySource(), slowSnapshot);
    const sink = new RecordingPresenceSink();
    hub.watchPresence(["bob"], sink);
    await until(() => release !== undefined);
    hub.openBridge({ address: "bob", since: 0, transport: "ws", sink: new RecordingSink() });
    await new Promise((resolve) => setTimeout(resolve, 10));
    release?.();
    await until(() => sink.snapshots.length === 1);
    // The snapshot was read before bob connected; the buffered change follows it exactly once.
    expect(sink.snapshots.map((s) => s.online)).toEqual([false]);
    expect(sink.changes.map((c) => c.online)).toEqual([true]);
  });

  it("ends presence feeds on close", async () => {
    const { hub } = await startHub();
    const sink = new RecordingPresenceSink();
    hub.watchPresence([], sink);
    await hub.close();
    expect(sink.ended).toBe("shutdown");
  });
});

describe("closing", () => {
  it("never throws when the adapter cannot withdraw (the database is gone)", async () => {
    const failing: BridgeAdapter = {
      ...inProcessAdapter(),
      async close() {
        throw new Error("connection ended");
      },
    };
    const { hub, errors } = await startHub(new MemorySource(), failing);
    hubs.splice(hubs.indexOf(hub), 1);
    await expect(hub.close()).resolves.toBeUndefined();
    expect(errors).toContain("closing");
  });
});
