import { encodeBase64 } from "@svc/canonical";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import type { LogClient } from "./log-client.js";
import { KtMonitor, type KtMonitorEvent } from "./monitor.js";
import { FakeLog, key32 } from "./test-support/fake-log.js";

const keysOf = (n: number) => ({ identitySigningKey: key32(n), identityDHKey: key32(n + 1) });

function monitorOf(
  log: FakeLog,
  options: { client?: LogClient; watch?: string[]; vrfPublicKey?: Uint8Array } = {},
) {
  const events: KtMonitorEvent[] = [];
  const monitor = new KtMonitor({
    client: options.client ?? log.client(),
    logPublicKey: log.publicKey,
    watch: options.watch ?? [],
    ...(options.vrfPublicKey ? { vrfPublicKey: options.vrfPublicKey } : {}),
    onEvent: (event) => events.push(event),
  });
  return { monitor, events };
}

/** The log's client, counting GET /v1/kt/vrf and /v1/kt/log_id calls. */
function countingClient(log: FakeLog, client: LogClient = log.client()) {
  const calls = { vrf: [] as string[], logId: 0 };
  const counted: LogClient = {
    ...client,
    logId: async () => {
      calls.logId++;
      return (client.logId as NonNullable<LogClient["logId"]>)();
    },
    vrf: async (address) => {
      calls.vrf.push(address);
      return vrfOf(client)(address);
    },
  };
  return { client: counted, calls };
}

async function codeOf(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
  } catch (error) {
    if (error instanceof KtVerifyError) return error.code;
    throw error;
  }
  return undefined;
}

/** The fake log's vrf(), which it always has. */
function vrfOf(client: LogClient): NonNullable<LogClient["vrf"]> {
  if (client.vrf === undefined) throw new Error("the client has no vrf()");
  return client.vrf;
}

const changes = (events: KtMonitorEvent[]) => events.filter((e) => e.event === "change");

describe("KtMonitor on a format-3 log", () => {
  it("checks format-3 index roots and reports watched v2 leaves without keys", async () => {
    const log = new FakeLog();
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 1001 });
    log.appendV2({ kind: "identity", address: "bob", ...keysOf(3), timestampMs: 1002 });
    const { client, calls } = countingClient(log);
    const { monitor, events } = monitorOf(log, {
      client,
      watch: ["\uff41lice"],
      vrfPublicKey: log.vrfPublicKey,
    });
    await monitor.step();
    expect(events).toEqual([
      {
        event: "sth",
        treeSize: 2,
        timestampMs: log.latestSth().timestampMs,
        rootHash: encodeBase64(log.tree.root()),
        indexRoot: encodeBase64(log.map3.root()),
      },
      { event: "change", address: "alice", kind: "identity", leafIndex: 0, timestampMs: 1001 },
    ]);
    log.appendV2({ kind: "tombstone", address: "alice", timestampMs: 1003 });
    log.appendV2({ kind: "identity", address: "carol", ...keysOf(5), timestampMs: 1004 });
    await monitor.step();
    expect(changes(events)).toEqual([
      { event: "change", address: "alice", kind: "identity", leafIndex: 0, timestampMs: 1001 },
      { event: "change", address: "alice", kind: "tombstone", leafIndex: 2, timestampMs: 1003 },
    ]);
    expect(calls).toEqual({ vrf: ["alice"], logId: 0 });
  });

  it("reports a replaced KEM key as an identity change that follows the previous leaf", async () => {
    const log = new FakeLog();
    const dave = { kind: "identity", address: "dave", ...keysOf(1) } as const;
    log.appendV2({ ...dave, kemKeyHash: key32(20), timestampMs: 1001 });
    log.appendV2({ kind: "identity", address: "erin", ...keysOf(3), timestampMs: 1002 });
    log.appendV2({ ...dave, kemKeyHash: key32(21), timestampMs: 1003 });
    log.appendV2({ kind: "tombstone", address: "dave", timestampMs: 1004 });
    log.appendV2({ ...dave, kemKeyHash: key32(22), timestampMs: 1005 });
    const { monitor, events } = monitorOf(log, { watch: ["dave"], vrfPublicKey: log.vrfPublicKey });
    await monitor.step();
    const change = { event: "change", address: "dave" } as const;
    expect(changes(events)).toEqual([
      { ...change, kind: "identity", leafIndex: 0, timestampMs: 1001 },
      { ...change, kind: "identity", leafIndex: 2, timestampMs: 1003, previousLeafIndex: 0 },
      { ...change, kind: "tombstone", leafIndex: 3, timestampMs: 1004 },
      { ...change, kind: "identity", leafIndex: 4, timestampMs: 1005 },
    ]);
  });

  it("follows a log that switches from v1 leaves to v2 leaves", async () => {
    const log = new FakeLog();
    log.append({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 1001 });
    log.append({ kind: "identity", address: "bob", ...keysOf(3), timestampMs: 1002 });
    const { client, calls } = countingClient(log);
    const { monitor, events } = monitorOf(log, { client, watch: ["alice"] });
    await monitor.step();
    expect(events.at(-1)).toEqual({
      event: "change",
      address: "alice",
      kind: "identity",
      leafIndex: 0,
      timestampMs: 1001,
      identitySigningKey: encodeBase64(key32(1)),
      identityDHKey: encodeBase64(key32(2)),
    });
    expect(events[0]).toMatchObject({ indexRoot: encodeBase64(log.map.root()) });
    expect(calls).toEqual({ vrf: [], logId: 0 });
    // The migration: a v2 leaf per address, then a delete as a v2 tombstone.
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 2001 });
    log.appendV2({ kind: "identity", address: "bob", ...keysOf(3), timestampMs: 2002 });
    log.appendV2({ kind: "tombstone", address: "alice", timestampMs: 2003 });
    const sth = await monitor.step();
    expect(sth.treeSize).toBe(5);
    expect(events.filter((e) => e.event === "sth").at(-1)).toMatchObject({
      indexRoot: encodeBase64(log.map3.root()),
    });
    expect(changes(events).slice(1)).toEqual([
      { event: "change", address: "alice", kind: "identity", leafIndex: 2, timestampMs: 2001 },
      { event: "change", address: "alice", kind: "tombstone", leafIndex: 4, timestampMs: 2003 },
    ]);
    // The VRF key came from GET /v1/kt/log_id, the index from GET /v1/kt/vrf, once each.
    expect(calls).toEqual({ vrf: ["alice"], logId: 1 });
  });

  it("replays both formats in one step", async () => {
    const log = new FakeLog();
    log.append({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 1001 });
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 2001 });
    const { monitor, events } = monitorOf(log, { watch: ["alice"] });
    await monitor.step();
    expect(changes(events).map((e) => e.event === "change" && e.leafIndex)).toEqual([0, 1]);
  });

  it("refuses a tree with v2 leaves whose STH signs the format-2 index root", async () => {
    const log = new FakeLog();
    log.append({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 1001 });
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 2001 });
    log.sths[2] = log.sign(2, log.tree.root(), log.map.root());
    expect(await codeOf(monitorOf(log).monitor.step())).toBe("KT_BAD_PROOF");
    const mixed = new FakeLog();
    mixed.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 1001 });
    // A v1 leaf after the switch does not belong in the format-3 map.
    mixed.append({ kind: "identity", address: "bob", ...keysOf(3), timestampMs: 1002 });
    expect(await monitorOf(mixed).monitor.step()).toMatchObject({ treeSize: 2 });
    mixed.sths[2] = mixed.sign(2, mixed.tree.root(), mixed.map.root());
    expect(await codeOf(monitorOf(mixed).monitor.step())).toBe("KT_BAD_PROOF");
  });

  it("refuses a VRF answer that does not verify, and stays failed", async () => {
    const log = new FakeLog();
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 1001 });
    const honest = log.client();
    const otherProof: LogClient = {
      ...honest,
      vrf: async (address) => ({ ...(await vrfOf(honest)("bob")), address }),
    };
    const { monitor } = monitorOf(log, { client: otherProof, watch: ["alice"] });
    expect(await codeOf(monitor.step())).toBe("KT_BAD_PROOF");
    expect(await codeOf(monitor.step())).toBe("KT_BAD_PROOF");
    const otherIndex: LogClient = {
      ...honest,
      vrf: async (address) => ({ ...(await vrfOf(honest)(address)), index: key32(1) }),
    };
    expect(
      await codeOf(monitorOf(log, { client: otherIndex, watch: ["alice"] }).monitor.step()),
    ).toBe("KT_BAD_PROOF");
    const otherKey = new FakeLog(new Uint8Array(32).fill(9)).vrfPublicKey;
    expect(
      await codeOf(monitorOf(log, { watch: ["alice"], vrfPublicKey: otherKey }).monitor.step()),
    ).toBe("KT_BAD_PROOF");
  });

  it("needs the VRF key of the log it monitors", async () => {
    const log = new FakeLog();
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 1001 });
    const noVrfKey = monitorOf(log, { client: log.client(false), watch: ["alice"] });
    expect(await codeOf(noVrfKey.monitor.step())).toBe("KT_MALFORMED");
    const other = new FakeLog(new Uint8Array(32).fill(9));
    const otherLogId: LogClient = { ...log.client(), logId: other.client().logId };
    expect(
      await codeOf(monitorOf(log, { client: otherLogId, watch: ["alice"] }).monitor.step()),
    ).toBe("KT_WRONG_LOG");
    // Without watched addresses no VRF key is needed.
    expect((await monitorOf(log, { client: log.client(false) }).monitor.step()).treeSize).toBe(1);
  });

  it("keeps replayed changes across an unreachable VRF route and reports them later", async () => {
    const log = new FakeLog();
    log.append({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 1001 });
    log.appendV2({ kind: "identity", address: "alice", ...keysOf(1), timestampMs: 2001 });
    const honest = log.client();
    let down = true;
    const flaky: LogClient = {
      ...honest,
      leaves: async (start, end) => honest.leaves(start, Math.min(end, start + 1)),
      vrf: async (address) => {
        if (down) throw new KtVerifyError("KT_FETCH_FAILED", "GET /v1/kt/vrf answered 503");
        return vrfOf(honest)(address);
      },
    };
    const { monitor, events } = monitorOf(log, { client: flaky, watch: ["alice"] });
    expect(await codeOf(monitor.step())).toBe("KT_FETCH_FAILED");
    expect(events).toEqual([]);
    down = false;
    await monitor.step();
    expect(changes(events).map((e) => e.event === "change" && e.leafIndex)).toEqual([0, 1]);
  });

  it("checks the vrfPublicKey option", () => {
    const log = new FakeLog();
    const options = { client: log.client(), logPublicKey: log.publicKey, onEvent: () => {} };
    expect(() => new KtMonitor({ ...options, vrfPublicKey: new Uint8Array(33) })).toThrow(
      RangeError,
    );
    expect(() => new KtMonitor({ ...options, vrfPublicKey: [1] as never })).toThrow(TypeError);
  });
});
