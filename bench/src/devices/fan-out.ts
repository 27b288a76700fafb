import { performance } from "node:perf_hooks";
import type { SvcClient } from "@svc/client";
import { createTestDatabase } from "@svc/db/testing";
import { percentile } from "../harness/measure.js";
import { benchDatabaseUrl } from "../harness/postgres-url.js";
import { startServerProcess } from "../harness/server-process.js";
import { type BenchRow, printTable } from "../harness/table.js";
import { linkedAccount, singleDeviceAccount } from "./linked-account.js";

/** BENCH_QUICK=1: few sends, for trying the suite, not for numbers to quote. */
const QUICK = process.env.BENCH_QUICK === "1";
const SENDS = QUICK ? 60 : 600;
const WARMUP_SENDS = QUICK ? 5 : 30;
const DEVICES = 5;
const TARGET = 2;
const PLAINTEXT_BYTES = 256;

const SINGLE = "send to one device (bob:1)";
const FAN_OUT = `send to an account of ${DEVICES} devices (bob)`;
const LIST_READ = "its device list read alone (GET + KT proof + chain)";

/**
 * Fan-out to an account's devices against a send to one device, through a prekey server in its
 * own process (PGlite; and PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set). Bob
 * has 5 devices linked by code; alice one device with a list of her own (so each send to an
 * account also names hers, finding no device to copy to). Every session is started before the
 * measured sends; then `alice.send("bob")` and `alice.send("bob:1")` alternate, one at a time,
 * each timed until it resolves (all deposits stored). A send to the account reads no list while
 * the ones it remembers are recent (2 minutes) and the server confirms their versions: one
 * request, as for one device. The target: fan-out p99 <= 2x single.
 */
export async function fanOutSuite(): Promise<void> {
  await onServer("PGlite");
  const url = benchDatabaseUrl();
  if (url === undefined) {
    console.log("\n(fan-out on PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)");
    return;
  }
  const database = await createTestDatabase(url);
  try {
    await onServer("PostgreSQL", database.url);
  } finally {
    await database.drop();
  }
}

async function onServer(backend: string, databaseUrl?: string): Promise<void> {
  const env: Record<string, string> = {
    SVC_LOG_LEVEL: "silent",
    SVC_RATE_LIMIT: "off",
    // Nobody drains bob's inboxes during the run: each must hold every deposit.
    SVC_INBOX_QUOTA: "1000000",
  };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const server = await startServerProcess(env);
  const run = Date.now().toString(36);
  const clients: SvcClient[] = [];
  try {
    const bob = `bench-fanout-bob-${run}`;
    const devices = await linkedAccount(server.url, bob, DEVICES);
    clients.push(...devices);
    const alice = await singleDeviceAccount(server.url, `bench-fanout-alice-${run}`);
    clients.push(alice);
    const rows = await measure(alice, bob, devices.at(-1) as SvcClient);
    printTable(
      `devices: alice's send, fan-out to ${DEVICES} devices vs one device, ${PLAINTEXT_BYTES}-byte messages, one at a time, server in its own process (${backend}, KT on)`,
      rows,
    );
  } finally {
    for (const client of clients) await client.close();
    await server.stop();
  }
}

async function measure(alice: SvcClient, bob: string, lastDevice: SvcClient): Promise<BenchRow[]> {
  const plaintext = new Uint8Array(PLAINTEXT_BYTES).fill(0x61);
  const single = `${bob}:1`;
  const timed = async (operation: () => Promise<unknown>, into: number[]) => {
    const started = performance.now();
    await operation();
    into.push(performance.now() - started);
  };
  // Starts every session (bundles fetched and KT-verified) and remembers bob's list.
  for (let i = 0; i < WARMUP_SENDS; i++) {
    await alice.send(bob, plaintext);
    await alice.send(single, plaintext);
  }
  const latencies = { single: [] as number[], fanOut: [] as number[], list: [] as number[] };
  const started = performance.now();
  for (let i = 0; i < SENDS; i++) {
    await timed(() => alice.send(bob, plaintext), latencies.fanOut);
    await timed(() => alice.send(single, plaintext), latencies.single);
    await timed(() => alice.deviceList(bob), latencies.list);
  }
  const seconds = (performance.now() - started) / 1000;
  const received = await lastDevice.receive();
  const sent = WARMUP_SENDS + SENDS;

  const row = (name: string, samples: number[], note: string, baseline?: string): BenchRow => {
    const sorted = [...samples].sort((a, b) => a - b);
    return {
      name,
      opsPerSec: sorted.length / sorted.reduce((sum, ms) => sum + ms / 1000, 0),
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      baseline,
      compare: "p99Ms",
      note,
    };
  };
  const singleRow = row(SINGLE, latencies.single, `${SENDS} sends, alternating with the fan-out`);
  const fanOutRow = row(
    FAN_OUT,
    latencies.fanOut,
    `${SENDS} sends; ${DEVICES} deposits each; bob:${DEVICES} received ${received.length}/${sent}`,
    SINGLE,
  );
  const ratio = (fanOutRow.p99Ms ?? Number.NaN) / (singleRow.p99Ms ?? Number.NaN);
  fanOutRow.note = `p99 target <= ${TARGET}x one device: ${ratio <= TARGET ? "met" : "NOT met"}; ${fanOutRow.note}; ${seconds.toFixed(1)} s for all rows`;
  return [
    singleRow,
    fanOutRow,
    row(
      LIST_READ,
      latencies.list,
      "what a send to an account reads when its lists changed or are over 2 minutes old",
      SINGLE,
    ),
  ];
}
