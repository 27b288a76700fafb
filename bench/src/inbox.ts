import { createHash, createPrivateKey, type KeyObject, randomBytes, sign } from "node:crypto";
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import {
  ed25519KeyPairFromSeed,
  encodeBase64,
  encodeBase64Url,
  signedBodyMessage,
} from "@svc/canonical";
import { inboxBlobs, inboxRegistrations, openStorage, type Storage } from "@svc/db";
import { createTestDatabase } from "@svc/db/testing";
import { loadConfig, startServer } from "@svc/prekey-server";
import postgres from "postgres";
import { type LoadResult, percentile } from "./measure.js";
import { benchDatabaseUrl } from "./postgres-url.js";
import { ed25519PrivateKey, signBodyWith } from "./signer.js";
import { type BenchRow, printTable } from "./table.js";

const CONCURRENCY = 16;
const RECIPIENTS = CONCURRENCY;
const FETCH_LIMIT = 50;
const SIZES = [
  { label: "1 KiB", bytes: 1024, deposits: 4000 },
  { label: "64 KiB", bytes: 64 * 1024, deposits: 600 },
];

/**
 * Inbox relay throughput over HTTP (deposits/s, fetched blobs/s) beside a raw INSERT / SELECT of
 * the same rows through the same driver and pool, on PGlite and, if configured, PostgreSQL.
 */
export async function inboxSuite(): Promise<void> {
  await benchBackend("PGlite (in memory)", await openStorage({}));
  const url = benchDatabaseUrl();
  if (url === undefined) {
    console.log("\n(inbox on PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)");
    return;
  }
  const scratch = await createTestDatabase(url);
  try {
    await benchBackend("PostgreSQL", await openStorage({ databaseUrl: scratch.url, poolSize: 10 }));
  } finally {
    await scratch.drop();
  }
}

async function benchBackend(backend: string, storage: Storage): Promise<void> {
  const config = loadConfig({
    SVC_PORT: "0",
    SVC_LOG_LEVEL: "silent",
    SVC_KT: "off",
    SVC_RATE_LIMIT: "off",
    SVC_INBOX_QUOTA: "100000000",
    SVC_INBOX_MAX_BLOB_BYTES: String(128 * 1024),
  });
  const server = await startServer(config, { storage });
  // The server closes keep-alive sockets idle for 5 s (e.g. during a baseline): each HTTP phase
  // starts on a fresh agent instead of reusing a socket the server may be closing.
  let agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const renewAgent = () => {
    agent.destroy();
    agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  };
  try {
    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => party(`recipient-${i}`));
    for (const [i, recipient] of recipients.entries()) {
      const address = `bench-${i}`;
      const body = signed("POST", "/v1/inbox/register", recipient, {
        address,
        signingPublicKey: recipient.publicKey,
      });
      await post(server.url, agent, "/v1/inbox/register", body);
    }
    const baselineAddress = "bench-raw";
    await storage.db
      .insert(inboxRegistrations)
      .values({ address: baselineAddress, signingKey: randomBytes(32), createdAt: Date.now() });

    const rows: BenchRow[] = [];
    let sequence = 0;
    for (const size of SIZES) {
      const sender = party("sender");
      const bodies = Array.from({ length: size.deposits }, (_, n) => {
        const address = `bench-${n % RECIPIENTS}`;
        const bytes = blob(size.bytes, sequence++);
        return {
          path: `/v1/inbox/${address}`,
          text: JSON.stringify(
            signed("POST", `/v1/inbox/${address}`, sender, {
              msgId: createHash("sha256").update(bytes).digest("hex"),
              ciphertext: encodeBase64(bytes),
              expiresAt: Date.now() + 3_600_000,
              senderPublicKey: sender.publicKey,
            }),
          ),
        };
      });
      const insertName = `raw INSERT ${size.label}`;
      const inserts = Array.from({ length: size.deposits }, () => blob(size.bytes, sequence++));
      const insertResult = await runEach(inserts.length, (n) => {
        const bytes = inserts[n] as Uint8Array;
        const now = Date.now();
        return storage.db.insert(inboxBlobs).values({
          address: baselineAddress,
          msgId: createHash("sha256").update(bytes).digest("hex"),
          ciphertext: bytes,
          senderKey: bytes.subarray(0, 32),
          sender: "raw",
          receivedAt: now * 1000 + n,
          expiresAt: now + 3_600_000,
        });
      });
      rows.push({ name: insertName, ...insertResult });
      renewAgent();
      const depositResult = await runEach(bodies.length, async (n) => {
        const { path, text } = bodies[n] as { path: string; text: string };
        const status = await post(server.url, agent, path, text);
        if (status !== 200) throw new Error(`deposit answered ${status}`);
      });
      rows.push({ name: `deposit ${size.label} (HTTP)`, ...depositResult, baseline: insertName });

      const selectName = `raw SELECT ${size.label} (blobs)`;
      const selectResult = await runFor(2000, async () => {
        const found = await storage.db.query.inboxBlobs.findMany({
          where: (blobs, { eq }) => eq(blobs.address, baselineAddress),
          orderBy: (blobs, { asc }) => [asc(blobs.receivedAt)],
          limit: FETCH_LIMIT,
        });
        return found.length;
      });
      rows.push({ name: selectName, ...selectResult });
      const fetchBodies = recipients.map((recipient, i) => {
        const path = `/v1/inbox/bench-${i}/fetch`;
        return {
          path,
          text: JSON.stringify(signed("POST", path, recipient, { limit: FETCH_LIMIT })),
        };
      });
      renewAgent();
      const fetchResult = await runFor(2000, async (worker) => {
        const { path, text } = fetchBodies[worker % fetchBodies.length] as {
          path: string;
          text: string;
        };
        return postCounting(server.url, agent, path, text);
      });
      rows.push({
        name: `fetch ${size.label} (HTTP, blobs)`,
        ...fetchResult,
        baseline: selectName,
      });
      await storage.db.delete(inboxBlobs);
    }
    printTable(`inbox relay on ${backend}, ${CONCURRENCY} concurrent clients`, rows);
  } finally {
    agent.destroy();
    await server.stop();
    await storage.close();
  }
}

interface Party {
  key: KeyObject;
  publicKey: string;
}

function party(label: string): Party {
  const seed = new Uint8Array(createHash("sha256").update(`bench:${label}`).digest());
  return {
    key: ed25519PrivateKey(seed),
    publicKey: encodeBase64(ed25519KeyPairFromSeed(seed).publicKey),
  };
}

/** Signed outside the timed loops; signedAt stays fresh for the 5-minute window. */
function signed(method: string, path: string, signer: Party, fields: Record<string, unknown>) {
  return signBodyWith(signer.key, method, path, { ...fields, signedAt: Date.now() });
}

function blob(size: number, n: number): Uint8Array {
  const bytes = new Uint8Array(randomBytes(size));
  bytes[0] = 0x02;
  new DataView(bytes.buffer).setUint32(1, n);
  return bytes;
}

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
        items += await operation(worker);
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

function post(base: string, agent: Agent, path: string, body: unknown): Promise<number> {
  return send(base, agent, path, body).then(({ status }) => status);
}

async function postCounting(base: string, agent: Agent, path: string, body: string) {
  const { status, text } = await send(base, agent, path, body);
  if (status !== 200) throw new Error(`fetch answered ${status}`);
  return (JSON.parse(text) as { items: unknown[] }).items.length;
}

function send(
  base: string,
  agent: Agent,
  path: string,
  body: unknown,
): Promise<{ status: number; text: string }> {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${path}`,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
