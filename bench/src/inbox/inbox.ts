import { createHash, randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { encodeBase64 } from "@svc/canonical";
import { openStorage, preparedRows, type Storage } from "@svc/db";
import { createTestDatabase } from "@svc/db/testing";
import { inboxBlobs, inboxRegistrations } from "@svc/inbox";
import { migrations } from "@svc/prekey-server";
import { type Party, send, signedBodyBy, party as testParty } from "@svc/test-client";
import { type KeepAliveSockets, keepAliveSockets, nodeSigner } from "@svc/test-client/node";
import { asc, eq } from "drizzle-orm";
import { type LoadResult, median, percentile } from "../harness/measure.js";
import { benchDatabaseUrl } from "../harness/postgres-url.js";
import { startServerProcess } from "../harness/server-process.js";
import { type BenchRow, printTable } from "../harness/table.js";

const CONCURRENCY = 16;
const RECIPIENTS = CONCURRENCY;
const FETCH_LIMIT = 50;
/** Rounds the HTTP rows alternate with their baselines over; each row reports its median. */
const ROUNDS = 5;
/** Rounds run first and not counted: JIT, connection pools and the server's caches warm up. */
const WARMUP_ROUNDS = 1;
const POOL_SIZE = 10;
const SIZES = [
  { label: "1 KiB", bytes: 1024, deposits: 15_000 },
  { label: "64 KiB", bytes: 64 * 1024, deposits: 1500 },
];
const BASELINE_ADDRESS = "bench-raw";
const PREPARED_INSERT = `insert into inbox_blobs
  (address, msg_id, ciphertext, sender_key, sender, received_at, expires_at)
  values ($1, $2, $3, $4, 'raw', $5, $6)`;

/**
 * Inbox relay throughput over HTTP (deposits/s, fetched blobs/s) beside a raw INSERT / SELECT of
 * the same rows through the same driver and pool size, on PGlite and, if configured, PostgreSQL.
 * The server runs in a process of its own, as deployed; the baselines run in this one, on their
 * own connection pool to the same database (PGlite: an in-memory database of their own).
 */
export async function inboxSuite(): Promise<void> {
  await benchBackend("PGlite (in memory)", await openStorage({ migrations }), {});
  const url = benchDatabaseUrl();
  if (url === undefined) {
    console.log("\n(inbox on PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)");
    return;
  }
  const scratch = await createTestDatabase(url);
  try {
    const storage = await openStorage({
      databaseUrl: scratch.url,
      poolSize: POOL_SIZE,
      migrations,
    });
    await benchBackend("PostgreSQL", storage, { DATABASE_URL: scratch.url });
  } finally {
    await scratch.drop();
  }
}

async function benchBackend(
  backend: string,
  storage: Storage,
  databaseEnv: Record<string, string>,
): Promise<void> {
  const server = await startServerProcess({
    ...databaseEnv,
    SVC_LOG_LEVEL: "silent",
    SVC_KT: "off",
    SVC_RATE_LIMIT: "off",
    SVC_INBOX_QUOTA: "100000000",
    SVC_INBOX_MAX_BLOB_BYTES: String(128 * 1024),
  });
  // The server closes keep-alive sockets idle for 5 s (e.g. during a baseline): each HTTP round
  // starts on a fresh client instead of reusing a socket the server may be closing.
  const withClient = async <T>(work: (http: KeepAliveSockets) => Promise<T>): Promise<T> => {
    const http = keepAliveSockets(server.url, CONCURRENCY);
    try {
      return await work(http);
    } finally {
      http.close();
    }
  };
  try {
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => party(`recipient-${i}`));
    await withClient(async (http) => {
      for (const [i, recipient] of recipients.entries()) {
        for (const size of SIZES) {
          const body = signed("POST", "/v1/inbox/register", recipient, {
            address: `bench-${size.bytes}-${i}`,
            signingPublicKey: recipient.publicKey,
          });
          const res = await send(http, {
            method: "POST",
            path: "/v1/inbox/register",
            body: JSON.stringify(body),
          });
          if (res.status !== 200) throw new Error(`register answered ${res.status}`);
        }
      }
    });
    await storage.db
      .insert(inboxRegistrations)
      .values({ address: BASELINE_ADDRESS, signingKey: randomBytes(32), createdAt: Date.now() });

    const rows: BenchRow[] = [];
    let sequence = 0;
    for (const size of SIZES) {
      const perRound = Math.ceil(size.deposits / ROUNDS);
      const sender = party("sender");
      const inserts: LoadResult[] = [];
      const preparedInserts: LoadResult[] = [];
      const deposits: LoadResult[] = [];
      for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
        const bodies = Array.from({ length: perRound }, (_, n) => {
          const address = `bench-${size.bytes}-${n % RECIPIENTS}`;
          const bytes = blob(size.bytes, sequence++);
          const path = `/v1/inbox/${address}`;
          const body = signed("POST", path, sender, {
            msgId: sha256Hex(bytes),
            ciphertext: encodeBase64(bytes),
            expiresAt: Date.now() + 3_600_000,
            senderPublicKey: sender.publicKey,
          });
          return { path, text: JSON.stringify(body) };
        });
        const fresh = () => Array.from({ length: perRound }, () => blob(size.bytes, sequence++));
        const forInsert = fresh();
        inserts.push(
          await runEach(perRound, (n) => {
            const bytes = forInsert[n] as Uint8Array;
            const now = Date.now();
            return storage.db.insert(inboxBlobs).values({
              address: BASELINE_ADDRESS,
              msgId: sha256Hex(bytes),
              ciphertext: bytes,
              senderKey: bytes.subarray(0, 32),
              sender: "raw",
              receivedAt: now * 1000 + n,
              expiresAt: now + 3_600_000,
            });
          }),
        );
        const forPrepared = fresh();
        preparedInserts.push(
          await runEach(perRound, (n) => {
            const bytes = forPrepared[n] as Uint8Array;
            const now = Date.now();
            return preparedRows(storage.db, PREPARED_INSERT, [
              BASELINE_ADDRESS,
              sha256Hex(bytes),
              bytes,
              bytes.subarray(0, 32),
              now * 1000 + perRound + n,
              now + 3_600_000,
            ]);
          }),
        );
        deposits.push(
          await withClient((http) =>
            runEach(perRound, async (n) => {
              const { path, text } = bodies[n] as { path: string; text: string };
              const res = await send(http, { method: "POST", path, body: text });
              if (res.status !== 200) throw new Error(`deposit answered ${res.status}`);
            }),
          ),
        );
      }
      const insertName = `raw INSERT ${size.label}`;
      const preparedName = `raw INSERT ${size.label}, prepared`;
      const depositName = `deposit ${size.label} (HTTP)`;
      const note = `median of ${ROUNDS} rounds of ${perRound}, after ${WARMUP_ROUNDS} uncounted`;
      const depositRow = counted(deposits);
      rows.push(
        { name: insertName, ...counted(inserts), note: `drizzle insert; ${note}` },
        { name: preparedName, ...counted(preparedInserts), note: `a prepared statement; ${note}` },
        {
          name: depositName,
          ...depositRow,
          baseline: insertName,
          note: `signed, verified, batched; ${note}`,
        },
        {
          name: `${depositName} vs prepared`,
          ...depositRow,
          baseline: preparedName,
          note: "the deposit row again, compared with the prepared INSERT of the same row (target >= 1.0x)",
        },
      );

      const selectName = `raw SELECT ${size.label} (blobs)`;
      const selects: LoadResult[] = [];
      const fetches: LoadResult[] = [];
      const fetchBodies = recipients.map((recipient, i) => {
        const path = `/v1/inbox/bench-${size.bytes}-${i}/fetch`;
        return {
          path,
          text: JSON.stringify(signed("POST", path, recipient, { limit: FETCH_LIMIT })),
        };
      });
      for (let round = 0; round < WARMUP_ROUNDS + ROUNDS; round++) {
        selects.push(
          await runFor(2000 / ROUNDS, async () => {
            const found = await storage.db
              .select()
              .from(inboxBlobs)
              .where(eq(inboxBlobs.address, BASELINE_ADDRESS))
              .orderBy(asc(inboxBlobs.receivedAt))
              .limit(FETCH_LIMIT);
            return found.length;
          }),
        );
        fetches.push(
          await withClient((http) =>
            runFor(2000 / ROUNDS, async (worker) => {
              const { path, text } = fetchBodies[worker % fetchBodies.length] as {
                path: string;
                text: string;
              };
              const res = await send(http, { method: "POST", path, body: text });
              if (res.status !== 200) throw new Error(`fetch answered ${res.status}`);
              return (JSON.parse(res.body) as { items: unknown[] }).items.length;
            }),
          ),
        );
      }
      rows.push(
        { name: selectName, ...counted(selects) },
        { name: `fetch ${size.label} (HTTP, blobs)`, ...counted(fetches), baseline: selectName },
      );
      await storage.db.delete(inboxBlobs); // the baseline's (each size has its own recipients)
    }
    printTable(
      `inbox relay on ${backend}, ${CONCURRENCY} concurrent clients, server in its own process`,
      rows,
    );
  } finally {
    await server.stop();
    await storage.close();
  }
}

const party = (label: string): Party => testParty(`bench:${label}`, nodeSigner);

/** Signed outside the timed loops; signedAt stays fresh for the 5-minute window. */
function signed(method: string, path: string, signer: Party, fields: Record<string, unknown>) {
  return signedBodyBy(signer.signer, method, path, { ...fields, signedAt: Date.now() });
}

function blob(size: number, n: number): Uint8Array {
  const bytes = new Uint8Array(randomBytes(size));
  bytes[0] = 0x02;
  new DataView(bytes.buffer).setUint32(1, n);
  return bytes;
}

const sha256Hex = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** The median of the rounds after the warm-up ones. */
const counted = (rounds: LoadResult[]) => median(rounds.slice(WARMUP_ROUNDS));

/** Runs operations 0..count-1 from CONCURRENCY workers; one op per item. */
async function runEach(
  count: number,
  operation: (n: number) => Promise<unknown>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const n = next++;
        const start = performance.now();
        await operation(n);
        latencies.push(performance.now() - start);
      }
    }),
  );
  return summarize(latencies, latencies.length, performance.now() - started);
}

/** Runs `operation` for `durationMs`; throughput counts the items each call reports. */
async function runFor(
  durationMs: number,
  operation: (worker: number) => Promise<number>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  let items = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      while (performance.now() < deadline) {
        const start = performance.now();
        // Not `items += await ...`: that reads `items` before the await and loses the other
        // workers' additions.
        const done = await operation(worker);
        items += done;
        latencies.push(performance.now() - start);
      }
    }),
  );
  return summarize(latencies, items, performance.now() - started);
}

function summarize(latencies: number[], items: number, elapsedMs: number): LoadResult {
  latencies.sort((a, b) => a - b);
  return {
    opsPerSec: items / (elapsedMs / 1000),
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}
