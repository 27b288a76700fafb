import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { ed25519 } from "@noble/curves/ed25519.js";
import { openStorage, type Storage } from "@svc/db";
import { createTestDatabase } from "@svc/db/testing";
import { createSthSigner, KtLog, ktLeaves } from "@svc/kt-log";
import {
  type KtClaim,
  type KtProof,
  KtVerifier,
  ktProofToJson,
  portableSthVerifier,
  verifyKtProofBody,
  verifySthSignature,
  webCryptoEd25519,
} from "@svc/kt-verify";
import {
  assembleProof,
  inclusionProofPlan,
  leafHash,
  MemoryTree,
  proofPlanNodes,
  subtreeKey,
} from "@svc/merkle";
import { migrations } from "@svc/prekey-server";
import { COSIGNATURE_V1_TYPE, cosign, formatVerifierKey } from "@svc/signed-note";
import postgres from "postgres";
import { runLoad } from "../harness/measure.js";
import { benchDatabaseUrl } from "../harness/postgres-url.js";
import { type BenchRow, printTable } from "../harness/table.js";
import { bundleProofLatency } from "./bundle-latency.js";
import { chromiumVerificationsPerSecond } from "./kt-browser.js";

const DURATION_MS = 3000;
const PROOF_LOG_SIZE = 2000;
const MILLION = 1_000_000;

/**
 * Key transparency: identity changes/s through KtLog.append (one leaf, one signed STH and the
 * index-map update each, committed) beside a plain INSERT of the same leaf row; bundle-proof
 * latency; proofs at 10^6 leaves; @svc/kt-verify verifications/s in Node.
 */
export async function ktSuite(): Promise<void> {
  await appendAndProofs("PGlite (in memory)", await openStorage({ migrations }));
  await bundleProofLatency("PGlite (in memory)", await openStorage({ migrations }));
  const url = benchDatabaseUrl();
  if (url === undefined) {
    console.log("\n(kt on PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)");
  } else {
    const scratch = await createTestDatabase(url);
    const served = await createTestDatabase(url);
    try {
      const storage = await openStorage({ databaseUrl: scratch.url, poolSize: 10, migrations });
      await appendAndProofs("PostgreSQL", storage);
      await millionLeafConsistency(scratch.url);
      await bundleProofLatency(
        "PostgreSQL",
        await openStorage({ databaseUrl: served.url, poolSize: 10, migrations }),
      );
    } finally {
      await scratch.drop();
      await served.drop();
    }
  }
  millionLeafInclusionInMemory();
  await verifierRates();
}

async function appendAndProofs(backend: string, storage: Storage): Promise<void> {
  const rows: BenchRow[] = [];
  try {
    const log = await KtLog.open({
      storage,
      signer: createSthSigner(randomBytes(32)),
      vrfSecretKey: randomBytes(32),
    });
    let n = 0;
    const change = () => ({
      kind: "identity" as const,
      address: `bench-${n++}`,
      identitySigningKey: randomBytes(32),
      identityDHKey: randomBytes(32),
    });
    let raw = 1e12;
    const insertLeaf = () =>
      storage.db
        .insert(ktLeaves)
        .values({ leafIndex: raw++, address: "raw", leaf: randomBytes(109) });
    for (const concurrency of [1, 32]) {
      const baseline = `INSERT leaf row (c=${concurrency})`;
      const base = await runLoad(insertLeaf, { concurrency, durationMs: DURATION_MS });
      rows.push({ name: baseline, ...base });
      const load = await runLoad(() => log.append(change()), {
        concurrency,
        durationMs: DURATION_MS,
      });
      rows.push({
        name: `KtLog.append (c=${concurrency})`,
        ...load,
        baseline,
        note: concurrency > 1 ? "batched, one STH per change" : "one STH per change",
      });
    }
    while (n < PROOF_LOG_SIZE)
      await Promise.all(Array.from({ length: 64 }, () => log.append(change())));
    const size = (await log.latestSth()).treeSize;
    const proofs = await runLoad(() => log.proofFor(`bench-${Math.floor(Math.random() * n)}`), {
      concurrency: 1,
      durationMs: DURATION_MS,
    });
    rows.push({ name: "bundle proof (KtLog.proofFor)", ...proofs, note: `log of ${size} leaves` });
    const absent = await runLoad(() => log.proofFor(`nobody-${Math.random()}`), {
      concurrency: 1,
      durationMs: DURATION_MS,
    });
    rows.push({ name: "absence proof (KtLog.proofFor)", ...absent, note: `log of ${size} leaves` });
  } finally {
    await storage.close();
  }
  printTable(`Key transparency on ${backend}`, rows);
}

/**
 * Seeding 10^6 leaves through the log would take over ten minutes here, so the subtree table is
 * filled by SQL with synthetic hashes: the proof path reads real row counts and indexes, the
 * hashes themselves are meaningless.
 */
async function millionLeafConsistency(url: string): Promise<void> {
  const storage = await openStorage({ databaseUrl: url, poolSize: 4, migrations });
  const seeder = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const started = performance.now();
    await seeder`truncate kt_subtrees, kt_sths, kt_leaves, kt_map_nodes, kt_log`;
    for (let level = 0; 2 ** level <= MILLION; level++) {
      const last = Math.floor(MILLION / 2 ** level) - 1;
      await seeder`
        insert into kt_subtrees (level, node_index, hash)
        select ${level}, i, decode(md5(${level} || ':' || i) || md5(i || ':' || ${level}), 'hex')
        from generate_series(0, ${last}) as i`;
    }
    const signer = createSthSigner(randomBytes(32));
    const log = await KtLog.open({ storage, signer, vrfSecretKey: randomBytes(32) });
    const fake = signer.sign({
      treeSize: MILLION,
      timestampMs: Date.now(),
      rootHash: randomBytes(32),
      indexRoot: randomBytes(32),
    });
    await seeder`
      insert into kt_sths (tree_size, timestamp_ms, root_hash, index_root, signature)
      values (${MILLION}, ${fake.timestampMs}, ${Buffer.from(fake.rootHash)},
        ${Buffer.from(fake.indexRoot)}, ${Buffer.from(fake.signature)})`;
    await seeder`analyze kt_subtrees`;
    const seededS = ((performance.now() - started) / 1000).toFixed(0);
    const load = await runLoad(
      () => log.consistencyProof(1 + Math.floor(Math.random() * (MILLION - 1)), MILLION),
      { concurrency: 1, durationMs: DURATION_MS },
    );
    printTable("Proofs at 10^6 leaves (PostgreSQL)", [
      {
        name: "consistency proof (KtLog.consistencyProof)",
        ...load,
        note: `~2x10^6 kt_subtrees rows seeded by SQL in ${seededS} s (synthetic hashes)`,
      },
    ]);
  } finally {
    await seeder.end();
    await storage.close();
  }
}

function millionLeafInclusionInMemory(): void {
  const tree = new MemoryTree();
  const seed = randomBytes(32);
  for (let i = 0; i < MILLION; i++) {
    seed.writeUInt32BE(i, 0);
    tree.appendLeafHash(leafHash(seed));
  }
  const nodes = new Map<string, Uint8Array>();
  const latencies: number[] = [];
  const started = performance.now();
  while (performance.now() - started < DURATION_MS) {
    const t = performance.now();
    const plan = inclusionProofPlan(Math.floor(Math.random() * MILLION), MILLION);
    for (const { level, index } of proofPlanNodes(plan)) {
      nodes.set(subtreeKey(level, index), tree.getNode(level, index));
    }
    assembleProof(plan, nodes);
    latencies.push(performance.now() - t);
  }
  latencies.sort((a, b) => a - b);
  printTable("Proofs at 10^6 leaves (in memory, MemoryTree-backed plan)", [
    {
      name: "inclusion proof (plan + assemble)",
      opsPerSec: latencies.length / ((performance.now() - started) / 1000),
      p50Ms: latencies[Math.floor(latencies.length / 2)],
      p99Ms: latencies[Math.floor(latencies.length * 0.99)],
      note: "the plan reads the same ~20 nodes a database read would",
    },
  ]);
}

async function verifierRates(): Promise<void> {
  const storage = await openStorage({ migrations });
  try {
    const signer = createSthSigner(randomBytes(32));
    const vrfSecretKey = randomBytes(32);
    const log = await KtLog.open({ storage, signer, vrfSecretKey });
    const keys = { identitySigningKey: randomBytes(32), identityDHKey: randomBytes(32) };
    for (let i = 0; i < 200; i++) {
      await log.append({ kind: "identity", address: `v${i}`, ...keys });
    }
    const proof: KtProof = await log.proofFor("v100");
    const witnessed = await cosignedTwoOfThree(log, proof);
    const claim = { type: "inclusion" as const, ...keys } satisfies KtClaim;
    const rows: BenchRow[] = [];
    const timed = async (name: string, work: () => Promise<unknown> | unknown, note?: string) => {
      const load = await runLoad(async () => work(), { concurrency: 1, durationMs: DURATION_MS });
      rows.push({ name, ...load, note });
    };
    await timed("proof body (VRF + inclusion + map proof)", () =>
      verifyKtProofBody("v100", proof, claim, log.vrfPublicKey),
    );
    const webCrypto = await webCryptoEd25519();
    await timed(
      "STH signature, default verifier",
      () => verifySthSignature(proof.sth, signer.publicKey),
      webCrypto ? "WebCrypto" : "tweetnacl",
    );
    await timed("STH signature, portable verifier", () =>
      verifySthSignature(proof.sth, signer.publicKey, portableSthVerifier),
    );
    const full = "full bundle proof in Node (STH, 2-of-3 cosigned checkpoint, VRF, log, map)";
    await timed(
      full,
      () => fullVerifier(log, witnessed).verifyProof("v100", witnessed.proof, claim),
      "a new KtVerifier each time: nothing cached",
    );
    const browser = await chromiumVerificationsPerSecond(witnessed, claim, "v100", DURATION_MS);
    rows.push({
      name: "full bundle proof in Chromium (the same)",
      opsPerSec: browser?.opsPerSec ?? 0,
      baseline: full,
      note: browser
        ? `${browser.msPerProof.toFixed(3)} ms per proof (target <= 3 ms)`
        : "skipped: /usr/bin/chromium not installed",
    });
    printTable("@svc/kt-verify verifications in Node and in headless Chromium", rows);
  } finally {
    await storage.close();
  }
}

/** A bundle proof whose checkpoint two of three witnesses cosigned, and the policy naming them. */
export interface WitnessedProof {
  proof: Record<string, unknown>;
  logPublicKey: Uint8Array;
  vrfPublicKey: Uint8Array;
  policy: { origin: string; witnesses: string[]; threshold: number };
}

async function cosignedTwoOfThree(log: KtLog, proof: KtProof): Promise<WitnessedProof> {
  const signed = await log.checkpointFor(proof.sth);
  const text = signed.slice(0, signed.indexOf("\n\n") + 1);
  const witnesses = [1, 2, 3].map((n) => {
    const seed = randomBytes(32);
    const name = `witness-${n}.example`;
    const verifierKey = formatVerifierKey(name, ed25519.getPublicKey(seed), COSIGNATURE_V1_TYPE);
    return { seed, name, verifierKey };
  });
  const now = Math.floor(Date.now() / 1000);
  const lines = witnesses.slice(0, 2).map((w) => cosign(text, w.name, w.seed, now));
  return {
    proof: { ...ktProofToJson(proof), checkpoint: signed + lines.join("") },
    logPublicKey: log.publicKey,
    vrfPublicKey: log.vrfPublicKey,
    policy: { origin: log.origin, witnesses: witnesses.map((w) => w.verifierKey), threshold: 2 },
  };
}

/** A verifier with nothing trusted yet, the way a page starts. */
function fullVerifier(log: KtLog, witnessed: WitnessedProof): KtVerifier {
  return new KtVerifier({
    logPublicKey: witnessed.logPublicKey,
    vrfPublicKey: witnessed.vrfPublicKey,
    witnessPolicy: witnessed.policy,
    client: {
      logPublicKey: async () => log.publicKey,
      sth: () => log.latestSth(),
      consistency: async () => [],
      leaves: async () => [],
      checkpoint: async () => witnessed.proof.checkpoint as string,
    },
  });
}
