import { type BenchRow, printTable } from "../harness/table.js";
import { type CryptoBound, cryptoBound } from "./crypto-bound.js";
import { runTransfer, type TransferPath, type TransferRun } from "./run-transfer.js";
import { createTestFile, type TestFile } from "./test-file.js";

/** BENCH_QUICK=1 moves 128 MiB once: for trying the suite, not for numbers to quote. */
const QUICK = process.env.BENCH_QUICK === "1";
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
const FILE_BYTES = QUICK ? 128 * MIB : GIB;
const CHUNK_BYTES = 4 * MIB;
/** Each path moves the file once per round, the paths taking turns; the median round is shown. */
const ROUNDS = QUICK ? 1 : 3;

const RAW: TransferPath = { receiver: "raw-post-receiver", sender: "raw-post-sender" };
const TUS: TransferPath = { receiver: "tus-receiver", sender: "tus-sender" };
const BOUND_NAME = "bound: ChaCha20-Poly1305 + SHA-256, one core";
const RAW_NAME = "raw POST (node:http, no crypto)";
const TUS_NAME = "tus (@tus/server + tus-js-client)";

/**
 * A file moved over loopback between two processes (sender, receiver), by svc's transfer with 1,
 * 2 and 4 lanes and, in the same run, by a raw HTTP POST and by tus, neither of which encrypts;
 * beside the crypto bound: the AEAD and SHA-256 alone over the same bytes on one core. Every
 * received file is checked against the sent file's SHA-256.
 */
export async function transferSuite(): Promise<void> {
  const file = await createTestFile(FILE_BYTES);
  try {
    const bound = await cryptoBound(file.path, CHUNK_BYTES);
    const runs = await measurePaths(file, [
      [RAW_NAME, RAW],
      [TUS_NAME, TUS],
    ]);
    printTable(
      `transfer: a ${size(FILE_BYTES)} file of random bytes over loopback, sender and receiver in processes of their own, ${size(CHUNK_BYTES)} chunks (MB/s = 10^6 bytes per second, median of ${ROUNDS})`,
      rows(file, bound, runs),
      { rateUnit: "MB/s", latency: false },
    );
  } finally {
    await file.remove();
  }
}

async function measurePaths(
  file: TestFile,
  paths: [string, TransferPath, number?][],
): Promise<Map<string, TransferRun[]>> {
  const runs = new Map<string, TransferRun[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, path, lanes = 1] of paths) {
      const run = await runTransfer(path, file, { chunkBytes: CHUNK_BYTES, lanes });
      runs.set(name, [...(runs.get(name) ?? []), run]);
    }
  }
  return runs;
}

function rows(file: TestFile, bound: CryptoBound, runs: Map<string, TransferRun[]>): BenchRow[] {
  const gib = file.bytes / GIB;
  const where = bound.pinned ? "process pinned to CPU 0" : "one process, not pinned";
  const boundRow: BenchRow = {
    name: BOUND_NAME,
    opsPerSec: file.bytes / 1e6 / bound.seconds,
    columns: {
      "CPU s/GiB send / recv": `${(bound.cpuSeconds / gib).toFixed(2)} (one process)`,
      "peak RSS MiB send / recv": mib(bound.peakRssBytes),
    },
    note: `${where}, sequential, page-cache reads not timed (${Math.round(file.bytes / 1e6 / bound.wallSeconds)} MB/s with them)`,
  };
  const raw = transferRow(RAW_NAME, median(runs.get(RAW_NAME)), file, TUS_NAME);
  raw.note = "one request, body streamed to a file, fsync before the answer";
  const tus = transferRow(TUS_NAME, median(runs.get(TUS_NAME)), file);
  tus.note = `PATCH per ${size(CHUNK_BYTES)} chunk (chunkSize = svc's), @tus/file-store, no fsync`;
  return [boundRow, raw, tus];
}

function transferRow(name: string, run: TransferRun, file: TestFile, baseline?: string): BenchRow {
  const gib = file.bytes / GIB;
  return {
    name,
    opsPerSec: file.bytes / 1e6 / run.seconds,
    baseline,
    columns: {
      "CPU s/GiB send / recv": `${(run.sender.cpuSeconds / gib).toFixed(2)} / ${(run.receiver.cpuSeconds / gib).toFixed(2)}`,
      "peak RSS MiB send / recv": `${mib(run.sender.peakRssBytes)} / ${mib(run.receiver.peakRssBytes)}`,
    },
  };
}

/** The run with the median time: a drift in the machine's speed cannot favour either path. */
function median(runs: TransferRun[] | undefined): TransferRun {
  const sorted = [...(runs ?? [])].sort((a, b) => a.seconds - b.seconds);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error("no run was measured");
  return middle;
}

const mib = (bytes: number) => String(Math.round(bytes / MIB));
const size = (bytes: number) => (bytes >= GIB ? `${bytes / GIB} GiB` : `${bytes / MIB} MiB`);
