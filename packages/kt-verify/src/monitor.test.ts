import { encodeBase64 } from "@svc/canonical";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KtVerifyError } from "./errors.js";
import type { LogClient } from "./log-client.js";
import { KtMonitor, type KtMonitorEvent } from "./monitor.js";
import { FakeLog, key32 } from "./test-support/fake-log.js";

const register = (log: FakeLog, address: string, n: number) =>
  log.append({
    kind: "identity",
    address,
    identitySigningKey: key32(n),
    identityDHKey: key32(n + 1),
    timestampMs: 1000 + n,
  });

function monitorOf(log: FakeLog, client: LogClient = log.client(), watch: string[] = []) {
  const events: KtMonitorEvent[] = [];
  const monitor = new KtMonitor({
    client,
    logPublicKey: log.publicKey,
    watch,
    onEvent: (event) => events.push(event),
  });
  return { monitor, events };
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

describe("KtMonitor", () => {
  it("reports each verified STH, then the changes of the watched addresses in it", async () => {
    const log = new FakeLog();
    register(log, "alice", 1);
    register(log, "bob", 3);
    log.append({ kind: "tombstone", address: "alice", timestampMs: 2000 });
    const { monitor, events } = monitorOf(log, log.client(), ["\uff41lice"]);
    const sth = await monitor.step();
    expect(sth.treeSize).toBe(3);
    expect(monitor.trusted).toBe(sth);
    expect(events).toEqual([
      {
        event: "sth",
        treeSize: 3,
        timestampMs: sth.timestampMs,
        rootHash: encodeBase64(log.tree.root()),
        indexRoot: encodeBase64(log.map.root()),
      },
      {
        event: "change",
        address: "alice",
        kind: "identity",
        leafIndex: 0,
        timestampMs: 1001,
        identitySigningKey: encodeBase64(key32(1)),
        identityDHKey: encodeBase64(key32(2)),
      },
      { event: "change", address: "alice", kind: "tombstone", leafIndex: 2, timestampMs: 2000 },
    ]);
  });

  it("follows the log's growth through consistency proofs; an unchanged STH reports nothing", async () => {
    const log = new FakeLog();
    register(log, "carol", 5);
    const requested: Array<[number, number]> = [];
    const client = log.client();
    const { monitor, events } = monitorOf(
      log,
      {
        ...client,
        consistency: async (from, to) => {
          requested.push([from, to]);
          return client.consistency(from, to);
        },
      },
      ["carol"],
    );
    await monitor.step();
    await monitor.step();
    register(log, "dave", 7);
    register(log, "carol", 9);
    await monitor.step();
    expect(requested).toEqual([[1, 3]]);
    expect(events.map((e) => (e.event === "sth" ? e.treeSize : e.leafIndex))).toEqual([1, 0, 3, 2]);
  });

  it("pages through leaves when the log serves fewer than asked", async () => {
    const log = new FakeLog();
    for (let i = 0; i < 4; i++) register(log, `u${i}`, i);
    const client = log.client();
    const { monitor, events } = monitorOf(
      log,
      { ...client, leaves: (start) => client.leaves(start, start + 1) },
      ["u3"],
    );
    await monitor.step();
    expect(events.at(-1)).toMatchObject({ event: "change", address: "u3", leafIndex: 3 });
  });

  it("refuses an STH of another log or with a bad signature", async () => {
    const log = new FakeLog();
    register(log, "alice", 1);
    const other = new FakeLog(key32(8));
    register(other, "alice", 1);
    expect(await codeOf(monitorOf(log, other.client()).monitor.step())).toBe("KT_WRONG_LOG");

    const forged = { ...log.latestSth(), signature: log.latestSth().signature.slice() };
    forged.signature[5] = (forged.signature[5] as number) ^ 0x10;
    const client = { ...log.client(), sth: async () => forged };
    const { monitor, events } = monitorOf(log, client);
    expect(await codeOf(monitor.step())).toBe("KT_BAD_SIGNATURE");
    expect(events).toEqual([]);
  });

  it("detects a log that shrank or forked under the same key", async () => {
    const honest = new FakeLog();
    register(honest, "alice", 1);
    register(honest, "bob", 3);
    const forkedLarger = new FakeLog();
    register(forkedLarger, "mallory", 1);
    register(forkedLarger, "bob", 3);
    register(forkedLarger, "eve", 5);
    const forkedSameSize = new FakeLog();
    register(forkedSameSize, "mallory", 1);
    register(forkedSameSize, "bob", 3);

    for (const [served, code] of [
      [honest.client(), undefined],
      [{ ...honest.client(), sth: async () => honest.sths[1] }, "KT_LOG_SHRANK"],
      [forkedSameSize.client(), "KT_FORK"],
      [forkedLarger.client(), "KT_FORK"],
    ] as const) {
      let client: LogClient = honest.client();
      const { monitor } = monitorOf(honest, {
        logPublicKey: () => client.logPublicKey(),
        sth: (size) => client.sth(size),
        consistency: (from, to) => client.consistency(from, to),
        leaves: (start, end) => client.leaves(start, end),
      });
      await monitor.step();
      client = served as LogClient;
      expect(await codeOf(monitor.step())).toBe(code);
    }
  });

  it("detects leaves that do not give the STH's log root or index root", async () => {
    const log = new FakeLog();
    register(log, "alice", 1);
    register(log, "bob", 3);
    const swapped = { ...log.client(), leaves: async () => [...log.leaves].reverse() };
    expect(await codeOf(monitorOf(log, swapped).monitor.step())).toBe("KT_BAD_PROOF");

    const badIndex = log.sign(2, log.tree.root(), log.tree.root());
    const lying = { ...log.client(), sth: async () => badIndex };
    expect(await codeOf(monitorOf(log, lying).monitor.step())).toBe("KT_BAD_PROOF");
  });

  it("keeps failing once a check failed, but polls again after a fetch failure", async () => {
    const log = new FakeLog();
    register(log, "alice", 1);
    const forged = { ...log.latestSth(), signature: new Uint8Array(64) };
    let polls = 0;
    const sth = async () => {
      polls++;
      if (polls === 1) throw new KtVerifyError("KT_FETCH_FAILED", "down");
      return polls === 2 ? forged : log.latestSth();
    };
    const { monitor } = monitorOf(log, { ...log.client(), sth });
    expect(await codeOf(monitor.step())).toBe("KT_FETCH_FAILED");
    expect(await codeOf(monitor.step())).toBe("KT_BAD_SIGNATURE");
    expect(await codeOf(monitor.step())).toBe("KT_BAD_SIGNATURE");
    expect(monitor.trusted).toBeUndefined();
  });

  it("runs overlapping steps one after the other", async () => {
    const log = new FakeLog();
    register(log, "alice", 1);
    register(log, "bob", 3);
    const { monitor, events } = monitorOf(log);
    const sizes = await Promise.all([monitor.step(), monitor.step(), monitor.step()]);
    expect(sizes.map((sth) => sth.treeSize)).toEqual([2, 2, 2]);
    expect(events).toHaveLength(1);
  });

  it("reports every watched change exactly once, however polls and appends interleave", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(fc.constantFrom("poll" as const), fc.constantFrom("a", "b", "c")), {
          maxLength: 20,
        }),
        async (script) => {
          const log = new FakeLog(undefined, () => 1);
          const { monitor, events } = monitorOf(log, log.client(), ["a", "c"]);
          for (const [n, action] of script.entries()) {
            if (action === "poll") await monitor.step();
            else register(log, action, n);
          }
          await monitor.step();
          let size = 0;
          const expected = script.flatMap((action, n) => {
            if (action === "poll") return [];
            const leafIndex = size++;
            return action === "b" ? [] : [{ address: action, leafIndex, timestampMs: 1000 + n }];
          });
          const changes = events.filter((e) => e.event === "change");
          expect(
            changes.map(({ address, leafIndex, timestampMs }) => ({
              address,
              leafIndex,
              timestampMs,
            })),
          ).toEqual(expected);
        },
      ),
      { numRuns: 50 },
    );
  });

  it("follow polls until aborted, reporting an unreachable log and polling again", async () => {
    const log = new FakeLog();
    register(log, "alice", 1);
    const stop = new AbortController();
    let polls = 0;
    const client = log.client();
    const { monitor, events } = monitorOf(log, {
      ...client,
      sth: async (size) => {
        polls++;
        if (polls === 2) throw new KtVerifyError("KT_FETCH_FAILED", "down");
        if (polls === 3) register(log, "bob", 3);
        if (polls === 4) stop.abort();
        return client.sth(size);
      },
    });
    const unreachable: string[] = [];
    await monitor.follow({
      intervalMs: 1,
      signal: stop.signal,
      onUnreachable: (error) => unreachable.push(error.message),
    });
    expect(polls).toBe(4);
    expect(unreachable).toEqual(["down"]);
    expect(events.map((e) => e.event === "sth" && e.treeSize)).toEqual([1, 2]);
  });

  it("follow ends on the first failed check, and an aborted signal ends its wait", async () => {
    const log = new FakeLog();
    const other = new FakeLog(key32(8));
    const wrong = monitorOf(log, other.client()).monitor;
    expect(await codeOf(wrong.follow({ intervalMs: 60_000 }))).toBe("KT_WRONG_LOG");

    const stop = new AbortController();
    const { monitor } = monitorOf(log);
    const following = monitor.follow({ intervalMs: 60_000, signal: stop.signal });
    await new Promise((resolve) => setTimeout(resolve, 10));
    stop.abort();
    await following;
    expect(monitor.trusted?.treeSize).toBe(0);
  });

  it("rejects wrong options with TypeError or RangeError naming them", async () => {
    const log = new FakeLog();
    const client = log.client();
    const onEvent = () => {};
    const logPublicKey = log.publicKey;
    const make = (options: unknown) => () => new KtMonitor(options as never);
    expect(make(null)).toThrow(/options must be an object/);
    expect(make({ logPublicKey, onEvent })).toThrow(/options.client/);
    expect(make({ client, logPublicKey })).toThrow(/options.onEvent/);
    expect(make({ client, onEvent })).toThrow(TypeError);
    expect(make({ client, onEvent })).toThrow(/options.logPublicKey/);
    expect(make({ client, logPublicKey: key32(1).subarray(1), onEvent })).toThrow(RangeError);
    expect(make({ client, logPublicKey, onEvent, watch: ["a,b"] })).toThrow(/options.watch: a,b/);
    expect(make({ client, logPublicKey, onEvent, watch: [7] })).toThrow(TypeError);
    const { monitor } = monitorOf(log);
    for (const intervalMs of [0, 1.5, Number.NaN]) {
      await expect(monitor.follow({ intervalMs })).rejects.toThrow(/options.intervalMs/);
    }
  });
});
