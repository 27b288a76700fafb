import { createPublicKey, verify as nodeVerify, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { encodeBase64, encodeBase64Url, portableEd25519 } from "@svc/canonical";
import { openStorage, type Storage } from "@svc/db";
import { createTestDatabase } from "@svc/db/testing";
import { nodeEd25519, serverEd25519Verifier } from "@svc/http/ed25519";
import { loadConfig, migrations, startServer } from "@svc/prekey-server";
import { signedBodyMessage } from "@svc/protocol";
import { overHttp, randomOneTimePreKeys } from "@svc/test-client";
import { keepAliveSockets } from "@svc/test-client/node";
import type postgres from "postgres";
import nacl from "tweetnacl";
import { type LoadResult, median, rate, runLoad } from "../harness/measure.js";
import { benchDatabaseUrl } from "../harness/postgres-url.js";
import { startServerProcess } from "../harness/server-process.js";
import { type BenchRow, printTable } from "../harness/table.js";
import { PrekeyQueues } from "./fill-queues.js";
import { pgbenchBinary, pgbenchPop } from "./pgbench.js";

const CONCURRENCY = 50;
const PGBENCH_PREFIX = "pgbench";
const PGBENCH_ROW = "pgbench pop (same statement)";
const DURATION_MS = 5000;
/** Rounds the bundle and pop rows alternate over (DURATION_MS in all for each row). */
const ROUNDS = 5;
const POOL_SIZE = 10;
/** Per queue; storageRows fills enough queues that every measured fetch pops a one-time prekey. */
const KEYS_PER_ADDRESS = 1000;

/**
 * Prekey directory: bundle fetches over HTTP next to the bare SQL pop they are built on (same
 * driver, same pool), registers carrying 100 one-time prekeys, and Ed25519 verification speed.
 */
export async function prekeysSuite(): Promise<void> {
  // The embedded database belongs to one process, so there the server shares the bench's event loop.
  const pglite = await openStorage({ migrations });
  const server = await startServer(loadConfig({ ...SERVER_ENV, SVC_PORT: "0" }), {
    storage: pglite,
  });
  printTable(
    "prekeys: bundle fetch and register, PGlite (server in this process)",
    await storageRows(server.url, pglite, 160).finally(() => server.stop()),
  );
  const url = benchDatabaseUrl();
  if (url) {
    const database = await createTestDatabase(url);
    try {
      const child = await startServerProcess({ ...SERVER_ENV, DATABASE_URL: database.url });
      try {
        const storage = await openStorage({
          databaseUrl: database.url,
          poolSize: POOL_SIZE,
          migrations,
        });
        printTable(
          "prekeys: bundle fetch and register, PostgreSQL (server in its own process)",
          await storageRows(child.url, storage, 200, database.url),
        );
      } finally {
        await child.stop();
      }
    } finally {
      await database.drop();
    }
  } else {
    console.log("\n(prekeys on PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)");
  }
  printTable("prekeys: Ed25519 verification of a register body", verificationRows());
}

const SERVER_ENV = {
  SVC_RATE_LIMIT: "off",
  SVC_LOG_LEVEL: "silent",
  SVC_KT: "off",
  SVC_INBOX: "off",
};

/**
 * Rows for the server at `url`; the raw pop runs on `storage`, a pool of the same driver and size
 * on the server's database, and, given the database's URL (PostgreSQL), pgbench beside it.
 */
async function storageRows(
  url: string,
  storage: Storage,
  addresses: number,
  databaseUrl?: string,
): Promise<BenchRow[]> {
  try {
    const client = new PrekeyQueues(overHttp(url));
    const fetchAddresses = await client.fill("fetch", addresses, KEYS_PER_ADDRESS);
    const popAddresses = await client.fill("pop", addresses, KEYS_PER_ADDRESS);
    const pgbench = databaseUrl ? pgbenchBinary() : undefined;
    if (databaseUrl && !pgbench) {
      console.log("\n(pgbench row skipped: no pgbench; set PGBENCH or install postgresql-contrib)");
    }
    if (pgbench) await client.fill(PGBENCH_PREFIX, addresses, KEYS_PER_ADDRESS);

    let fetched = 0;
    let withPrekey = 0;
    const http = keepAliveSockets(url, CONCURRENCY);
    const fetchBundle = async (worker: number) => {
      const address = fetchAddresses[(worker + fetched++) % addresses];
      const res = await http(`/v1/keys/bundle/${address}`, { method: "GET" });
      if (res.status !== 200) throw new Error(`bundle fetch answered ${res.status}`);
      if ("oneTimePreKey" in (JSON.parse(res.body) as object)) withPrekey++;
    };
    const pop = rawPop(storage);
    let popped = 0;
    const popOne = (worker: number) => pop(popAddresses[(worker + popped++) % addresses] ?? "");
    // The two rows alternate over several short rounds and each reports its median round, so a
    // drift in the machine's speed (large on a shared two-core VM) cannot favour either row.
    const bundleRounds: LoadResult[] = [];
    const popRounds: LoadResult[] = [];
    const pgbenchRounds: LoadResult[] = [];
    const load = { concurrency: CONCURRENCY, durationMs: DURATION_MS / ROUNDS };
    for (let round = 0; round < ROUNDS; round++) {
      bundleRounds.push(await runLoad(fetchBundle, load));
      popRounds.push(await runLoad(popOne, load));
      if (pgbench && databaseUrl) {
        pgbenchRounds.push(
          await pgbenchPop(pgbench, databaseUrl, {
            prefix: PGBENCH_PREFIX,
            addresses,
            clients: POOL_SIZE,
            seconds: Math.max(1, Math.round(DURATION_MS / ROUNDS / 1000)),
          }),
        );
      }
    }
    http.close();
    const bundles = median(bundleRounds);
    const pops = median(popRounds);
    const pgbenchRows: BenchRow[] =
      pgbenchRounds.length > 0
        ? [
            {
              name: PGBENCH_ROW,
              ...median(pgbenchRounds),
              note: `PostgreSQL's own C client, ${POOL_SIZE} connections (the server's pool size), 2 threads, prepared; median of ${ROUNDS} rounds`,
            },
            {
              name: "bundle fetch (HTTP) vs pgbench",
              ...bundles,
              baseline: PGBENCH_ROW,
              note: "the bundle row again, compared with pgbench's pop (target >= 1.5x)",
            },
          ]
        : [];

    const floor = await httpFloor();

    let registered = 0;
    const registers = await runLoad(() => client.register(`reg-${registered++}`, 100), {
      concurrency: 10,
      durationMs: DURATION_MS,
    });

    return [
      {
        name: "SQL pop only (DELETE ... RETURNING)",
        ...pops,
        note: `${CONCURRENCY} concurrent, same pool; median of ${ROUNDS} rounds`,
      },
      {
        name: "bundle fetch (HTTP)",
        ...bundles,
        baseline: "SQL pop only (DELETE ... RETURNING)",
        note: `${CONCURRENCY} keep-alive clients; median of ${ROUNDS} rounds alternating with the pop; ${Math.round((withPrekey / fetched) * 100)}% carried a one-time prekey`,
      },
      ...pgbenchRows,
      {
        name: "empty HTTP response (node:http)",
        ...floor,
        note: "the HTTP ceiling of this machine and client",
      },
      {
        name: "register with 100 one-time prekeys (HTTP)",
        ...registers,
        note: "10 concurrent, new address each",
      },
    ];
  } finally {
    await storage.close();
  }
}

/** A bare node:http server answering nothing, driven like the bundle row. */
async function httpFloor() {
  const server = createServer((_req, res) => res.end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/`;
  const http = keepAliveSockets(url.slice(0, -1), CONCURRENCY);
  try {
    return await runLoad(() => http("/", { method: "GET" }), {
      concurrency: CONCURRENCY,
      durationMs: DURATION_MS,
    });
  } finally {
    http.close();
    server.closeAllConnections();
    server.close();
  }
}

/** The statement the bundle route is built on, sent through the storage's own client and pool. */
function rawPop(storage: Storage): (address: string) => Promise<unknown> {
  const sql = (storage.db as unknown as { $client: postgres.Sql }).$client;
  return (address) =>
    sql`delete from one_time_prekeys where address = ${address} and id = (select id
      from one_time_prekeys where address = ${address} order by id limit 1 for update skip locked)
      returning key_id, public_key`;
}

/**
 * Ed25519 verification of a register body with 100 one-time prekeys (the longest signed body of
 * the keys routes, whose SHA-512 pass dominates) and of a replenish of one prekey, on this thread.
 */
function verificationRows(): BenchRow[] {
  const keyPair = nacl.sign.keyPair.fromSeed(randomBytes(32));
  const register = signedBodyMessage("POST", "/v1/keys/register", {
    address: "alice@example.com:1",
    identitySigningKey: encodeBase64(keyPair.publicKey),
    identityDHKey: encodeBase64(randomBytes(32)),
    signedPreKey: {
      keyId: 1,
      publicKey: encodeBase64(randomBytes(32)),
      signature: encodeBase64(randomBytes(64)),
    },
    oneTimePreKeys: randomOneTimePreKeys(0, 100),
    signedAt: Date.now(),
  });
  const replenish = signedBodyMessage("POST", "/v1/keys/replenish", {
    address: "alice@example.com:1",
    oneTimePreKeys: randomOneTimePreKeys(0, 1),
    signedAt: Date.now(),
  });
  const openssl = nodeEd25519();
  let serverPath = "libsodium";
  const server = serverEd25519Verifier(() => {
    serverPath = "node:crypto, sodium-native did not load";
  });
  const keyObject = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: encodeBase64Url(keyPair.publicKey) },
    format: "jwk",
  });
  const check = (ok: boolean) => {
    if (!ok) throw new Error("verification failed");
  };
  return [register, replenish].flatMap((message) => {
    const signature = nacl.sign.detached(message, keyPair.secretKey);
    const { publicKey } = keyPair;
    const size = `${message.length}-byte message`;
    const baseline = `tweetnacl (raw), ${size}`;
    return [
      {
        name: baseline,
        opsPerSec: rate(() => check(nacl.sign.detached.verify(message, signature, publicKey))),
      },
      {
        name: `portableEd25519 (tweetnacl, strict), ${size}`,
        opsPerSec: rate(() => check(portableEd25519.verify(signature, message, publicKey))),
        baseline,
      },
      {
        name: `node:crypto verify (raw), ${size}`,
        opsPerSec: rate(() => check(nodeVerify(null, message, keyObject, signature))),
        baseline,
      },
      {
        name: `nodeEd25519 (node:crypto, strict), ${size}`,
        opsPerSec: rate(() => check(openssl.verify(signature, message, publicKey))),
        baseline: `node:crypto verify (raw), ${size}`,
        note: "strict S < L and point checks, cached key objects",
      },
      {
        name: `serverEd25519Verifier (server path: ${serverPath}), ${size}`,
        opsPerSec: rate(() => check(server.verify(signature, message, publicKey))),
        baseline: `node:crypto verify (raw), ${size}`,
      },
    ];
  });
}

/** A new database on the benchmark server, dropped afterwards. */
