import { startServerProcess } from "../harness/server-process.js";
import { type BenchRow, printTable } from "../harness/table.js";
import { type CryptoBound, cryptoBound } from "./crypto-bound.js";
import { runTransfer, type TransferPath, type TransferRun } from "./run-transfer.js";
import { createTestFile, type TestFile } from "./test-file.js";

/** BENCH_QUICK=1 moves 128 MiB once and skips the 4 GiB row: for trying the suite. */
const QUICK = process.env.BENCH_QUICK === "1";
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const FILE_BYTES = QUICK ? 128 * MIB : GIB;
/** The memory target's file: RSS must not grow with the file. */
const MEMORY_FILE_BYTES = 4 * GIB;
const CHUNK_BYTES = 4 * MIB;
/** Each path moves the file once per round, the paths taking turns; the median round is shown. */
const ROUNDS = QUICK ? 1 : 3;
const LANES = [1, 2, 4];
/** The targets on this 2-core machine, for 4 lanes. */
const TARGET_MB_PER_S = 300;
const TARGET_VS_TUS = 1.0;
const TARGET_RSS_MIB = 200;

const RAW: TransferPath = { receiver: "raw-post-receiver", sender: "raw-post-sender" };
const TUS: TransferPath = { receiver: "tus-receiver", sender: "tus-sender" };
const SVC: TransferPath = { receiver: "svc-receiver", sender: "svc-sender" };
const BOUND_NAME = "bound: AES-256-GCM + SHA-256, one core";
const RAW_NAME = "raw POST (node:http, no crypto)";
const TUS_NAME = "tus (@tus/server + tus-js-client)";
const svcName = (lanes: number) => `svc, ${lanes} lane${lanes === 1 ? "" : "s"}`;
const MEMORY_NAME = `svc, 4 lanes, ${size(MEMORY_FILE_BYTES)} file (memory target)`;

interface Measured {
  run: TransferRun;
  bytes: number;
}

/**
 * A file moved over loopback between two processes (sender, receiver), by svc's transfer with 1,
 * 2 and 4 lanes and, in the same run, by a raw HTTP POST and by tus, neither of which encrypts;
 * beside the crypto bound: the AEAD and SHA-256 alone over the same bytes on one core. Every
 * received file is checked against the sent file's SHA-256.
 */
export async function transferSuite(): Promise<void> {
  const server = await startServerProcess({
    SVC_LOG_LEVEL: "silent",
    SVC_RATE_LIMIT: "off",
  });
  try {
    const measured = new Map<string, Measured>();
    const file = await createTestFile(FILE_BYTES);
    let bound: CryptoBound;
    try {
      bound = await cryptoBound(file.path, CHUNK_BYTES);
      const paths: [string, TransferPath, number][] = [
        [RAW_NAME, RAW, 1],
        [TUS_NAME, TUS, 1],
        ...LANES.map((lanes): [string, TransferPath, number] => [svcName(lanes), SVC, lanes]),
      ];
      for (const [name, run] of await medianRuns(file, paths, server.url)) {
        measured.set(name, { run, bytes: file.bytes });
      }
    } finally {
      await file.remove();
    }
    if (!QUICK) measured.set(MEMORY_NAME, await memoryRun(server.url));
    printTable(
      `transfer: ${size(FILE_BYTES)} of random bytes over loopback, sender and receiver each in a process of its own, ${size(CHUNK_BYTES)} chunks (MB/s = 10^6 bytes per second, median of ${ROUNDS} runs)`,
      rows(bound, measured),
      { rateUnit: "MB/s", latency: false },
    );
  } finally {
    await server.stop();
  }
}

async function medianRuns(
  file: TestFile,
  paths: [string, TransferPath, number][],
  server: string,
): Promise<Map<string, TransferRun>> {
  const runs = new Map<string, TransferRun[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, path, lanes] of paths) {
      const run = await runTransfer(path, file, { chunkBytes: CHUNK_BYTES, lanes, server });
      runs.set(name, [...(runs.get(name) ?? []), run]);
    }
  }
  return new Map([...runs].map(([name, of]) => [name, median(of)]));
}

/** svc with 4 lanes once more, on a 4 GiB file: the peak RSS the memory target is read on. */
async function memoryRun(server: string): Promise<Measured> {
  const file = await createTestFile(MEMORY_FILE_BYTES);
  try {
    const run = await runTransfer(SVC, file, { chunkBytes: CHUNK_BYTES, lanes: 4, server });
    return { run, bytes: file.bytes };
  } finally {
    await file.remove();
  }
}

function rows(bound: CryptoBound, measured: Map<string, Measured>): BenchRow[] {
  const row = (name: string, note: string, baseline?: string): BenchRow[] => {
    const found = measured.get(name);
    return found ? [transferRow(name, found, note, baseline)] : [];
  };
  const rawNote = "one request, body streamed to a file, fsync before the answer";
  const tusNote = `a PATCH per ${size(CHUNK_BYTES)} (chunkSize = svc's), @tus/file-store, no fsync`;
  const svcNote =
    "sendFile (node:http) -> mountTransferReceiver on @hono/node-server, FILE store (fileTransferStore)";
  const svc = LANES.flatMap((lanes) => {
    const [svcRow] = row(svcName(lanes), svcNote, TUS_NAME);
    if (svcRow === undefined) return [];
    svcRow.columns = { ...svcRow.columns, "vs raw POST": versus(measured, svcRow.name, RAW_NAME) };
    if (lanes === 4) svcRow.note = `${speedVerdict(svcRow, measured)}; ${svcRow.note}`;
    return [svcRow];
  });
  const memory = row(MEMORY_NAME, svcNote).map((memoryRow) => {
    memoryRow.note = `${memoryVerdict(measured.get(MEMORY_NAME), "")}; one run; ${memoryRow.note}`;
    return memoryRow;
  });
  const lastSvc = svc.at(-1);
  if (QUICK && lastSvc) {
    const at = ` (at ${size(FILE_BYTES)} here; the full run reads it at ${size(MEMORY_FILE_BYTES)})`;
    lastSvc.note = `${memoryVerdict(measured.get(svcName(4)), at)}; ${lastSvc.note}`;
  }
  return [
    boundRow(bound, FILE_BYTES),
    ...row(RAW_NAME, rawNote, TUS_NAME),
    ...row(TUS_NAME, tusNote),
    ...svc,
    ...memory,
  ];
}

function boundRow(bound: CryptoBound, bytes: number): BenchRow {
  const where = bound.pinned ? "one process pinned to CPU 0" : "one process, not pinned";
  return {
    name: BOUND_NAME,
    opsPerSec: bytes / 1e6 / bound.seconds,
    columns: {
      "CPU s/GiB send / recv": `${(bound.cpuSeconds / (bytes / GIB)).toFixed(2)} (both)`,
      "peak RSS MiB send / recv": mib(bound.peakRssBytes),
    },
    note: `${where}, sequential; the file's page-cache reads not timed (${Math.round(bytes / 1e6 / bound.wallSeconds)} MB/s with them)`,
  };
}

function transferRow(
  name: string,
  { run, bytes }: Measured,
  note: string,
  baseline?: string,
): BenchRow {
  const gib = bytes / GIB;
  return {
    name,
    opsPerSec: bytes / 1e6 / run.seconds,
    baseline,
    columns: {
      "CPU s/GiB send / recv": `${(run.sender.cpuSeconds / gib).toFixed(2)} / ${(run.receiver.cpuSeconds / gib).toFixed(2)}`,
      "peak RSS MiB send / recv": `${mib(run.sender.peakRssBytes)} / ${mib(run.receiver.peakRssBytes)}`,
    },
    note,
  };
}

function speedVerdict(svcRow: BenchRow, measured: Map<string, Measured>): string {
  const tus = measured.get(TUS_NAME);
  const vsTus = tus ? svcRow.opsPerSec / (tus.bytes / 1e6 / tus.run.seconds) : Number.NaN;
  const fast = svcRow.opsPerSec >= TARGET_MB_PER_S ? "met" : "NOT met";
  const beside = vsTus >= TARGET_VS_TUS ? "met" : "NOT met";
  return `target >= ${TARGET_MB_PER_S} MB/s: ${fast}; target >= ${TARGET_VS_TUS.toFixed(1)}x tus: ${beside} (${vsTus.toFixed(2)}x)`;
}

function memoryVerdict(found: Measured | undefined, at: string): string {
  if (found === undefined) return "memory target not measured";
  const peak = Math.max(found.run.sender.peakRssBytes, found.run.receiver.peakRssBytes) / MIB;
  const verdict = peak < TARGET_RSS_MIB ? "met" : "NOT met";
  return `target RSS < ${TARGET_RSS_MIB} MiB on each side: ${verdict}${at}`;
}

/** The rate of `name` as a percentage of `of`'s. */
function versus(measured: Map<string, Measured>, name: string, of: string): string {
  const rate = (m: Measured | undefined) => (m ? m.bytes / m.run.seconds : Number.NaN);
  return `${((rate(measured.get(name)) / rate(measured.get(of))) * 100).toFixed(0)}%`;
}

/** The run with the median time: a drift in the machine's speed cannot favour either path. */
function median(runs: TransferRun[]): TransferRun {
  const sorted = [...runs].sort((a, b) => a.seconds - b.seconds);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error("no run was measured");
  return middle;
}

function mib(bytes: number): string {
  return String(Math.round(bytes / MIB));
}

function size(bytes: number): string {
  return bytes >= GIB ? `${bytes / GIB} GiB` : `${bytes / MIB} MiB`;
}
