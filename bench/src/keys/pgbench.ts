import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type LoadResult, percentile } from "../harness/measure.js";

const POSTGRES_BINARIES = "/usr/lib/postgresql";

/** PGBENCH, else the newest Debian PostgreSQL's pgbench; undefined when there is none. */
export function pgbenchBinary(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.PGBENCH) return env.PGBENCH;
  if (!existsSync(POSTGRES_BINARIES)) return undefined;
  const versions = readdirSync(POSTGRES_BINARIES)
    .filter((name) => /^\d+$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions
    .map((version) => join(POSTGRES_BINARIES, version, "bin", "pgbench"))
    .find((path) => existsSync(path));
}

/**
 * The bundle route's pop (the same statement as the SQL pop row) from PostgreSQL's own C client:
 * `clients` connections on two threads, prepared statements, for `seconds`, each transaction one
 * pop from a random one of `addresses` queues named `<prefix>-<n>`. Latencies from pgbench's
 * per-transaction log.
 */
export async function pgbenchPop(
  binary: string,
  databaseUrl: string,
  options: { prefix: string; addresses: number; clients: number; seconds: number },
): Promise<LoadResult> {
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-pgbench-"));
  try {
    const script = join(dir, "pop.sql");
    const address = `'${options.prefix}-' || :n::int`;
    await writeFile(
      script,
      `\\set n random(0, ${options.addresses - 1})
delete from one_time_prekeys where address = ${address} and id = (select id
  from one_time_prekeys where address = ${address} order by id limit 1 for update skip locked)
  returning key_id, public_key;
`,
    );
    const args = [
      ...["-n", "-M", "prepared", "-c", String(options.clients), "-j", "2"],
      ...["-T", String(options.seconds), "-f", script],
      ...["--log", `--log-prefix=${join(dir, "log")}`, databaseUrl],
    ];
    const { stdout } = await promisify(execFile)(binary, args, { cwd: dir });
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
    if (!tps) throw new Error(`pgbench printed no rate: ${stdout}`);
    const latencies = await transactionLatencies(dir);
    return {
      opsPerSec: Number(tps[1]),
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Each line of a pgbench log: client, transaction, latency in µs, script, epoch s, µs. */
async function transactionLatencies(dir: string): Promise<number[]> {
  const logs = (await readdir(dir)).filter((name) => name.startsWith("log."));
  const latencies: number[] = [];
  for (const log of logs) {
    for (const line of (await readFile(join(dir, log), "utf8")).split("\n")) {
      const micros = Number(line.split(" ")[2]);
      if (Number.isFinite(micros) && line !== "") latencies.push(micros / 1000);
    }
  }
  return latencies.sort((a, b) => a - b);
}
