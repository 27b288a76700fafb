import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { benchDatabaseUrl } from "../harness/postgres-url.js";
import { type BenchRow, printTable } from "../harness/table.js";
import { runConfiguration } from "../load/configuration.js";
import type { StartInstance } from "../load/deployment.js";
import { LOAD_SETTINGS } from "../load/load.js";
import { MALLOC_VARIABLES, residentMib, startMainProcess } from "./main-process.js";

/** How long a server idles after it listens before its RSS is read. */
const IDLE_SECONDS = 10;
/** The issue's bounds for the embedded default: after start and idle, and through the load. */
const IDLE_BOUND_MIB = 200;
const PEAK_BOUND_MIB = 300;

interface Figures {
  database: "PGlite" | "PostgreSQL";
  idleMib: number;
  peakMib: number;
  opsPerSec: number;
  violations: number;
}

/**
 * The prekey server's resident memory (RSS) as the README's first command runs it:
 * apps/prekey-server/dist/main.js without DATABASE_URL, PGlite in a new SVC_DATA_DIR (initdb
 * included), beside the same server on PostgreSQL. Each runs the load suite's mix on one
 * instance; the RSS is read after start and IDLE_SECONDS idle, and the peak is the kernel's
 * high-water mark (VmHWM) at the end of the load, which no sampling can miss. Linux only.
 */
export async function memorySuite(): Promise<void> {
  const postgresUrl = benchDatabaseUrl();
  const malloc = Object.entries(process.env).filter(([name]) => MALLOC_VARIABLES.test(name));
  const report = process.report.getReport() as { header?: { glibcVersionRuntime?: string } };
  const glibc = report.header?.glibcVersionRuntime;
  console.log(
    `\nmemory: the prekey server's RSS after start + ${IDLE_SECONDS} s idle and its peak through the load suite's mix (1 instance, seed ${LOAD_SETTINGS.seed}, ${LOAD_SETTINGS.users} users); allocator: glibc ${glibc ?? "?"} malloc, ${malloc.length > 0 ? malloc.map(([name, value]) => `${name}=${value}`).join(" ") : "default settings (no MALLOC_* or GLIBC_TUNABLES)"}`,
  );
  const figures = [await measure("PGlite", undefined)];
  if (postgresUrl) figures.push(await measure("PostgreSQL", postgresUrl));
  else console.log("(PostgreSQL rows skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)");
  printTable(
    "memory: the prekey server's resident set, embedded PGlite beside PostgreSQL",
    rows(figures),
    {
      rate: false,
      latency: false,
    },
  );
}

async function measure(database: Figures["database"], postgresUrl: string | undefined) {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-bench-memory-"));
  let idleMib = Number.NaN;
  let peakMib = Number.NaN;
  const start: StartInstance = async (env) => {
    const server = await startMainProcess({ ...env, SVC_DATA_DIR: dataDir });
    const pid = server.pid as number;
    await sleep(IDLE_SECONDS * 1000);
    idleMib = residentMib(pid).now;
    return {
      ...server,
      async stop() {
        peakMib = residentMib(pid).peak;
        await server.stop();
      },
    };
  };
  try {
    const result = await runConfiguration({
      ...LOAD_SETTINGS,
      name: "1 instance",
      instances: 1,
      postgresUrl,
      start,
    });
    return {
      database,
      idleMib,
      peakMib,
      opsPerSec: result.measured.opsPerSec,
      violations: result.invariants.reduce((sum, invariant) => sum + invariant.violations, 0),
    } satisfies Figures;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

function rows(figures: readonly Figures[]): BenchRow[] {
  const label = (database: Figures["database"]) =>
    database === "PGlite" ? "PGlite (embedded, the default)" : "PostgreSQL (DATABASE_URL)";
  const idle = (database: Figures["database"]) => `${label(database)}: after start + idle`;
  const peak = (database: Figures["database"]) => `${label(database)}: peak through the load`;
  const onPostgres = figures.some((f) => f.database === "PostgreSQL");
  const bound = (mib: number, limit: number) =>
    `bound ${limit} MiB: ${mib <= limit ? "within" : "EXCEEDED"}`;
  const load = (f: Figures) =>
    `measured at ${Math.round(f.opsPerSec)} mix ops/s; ${f.violations} invariant violations`;
  const ordered = [...figures].sort((a, b) =>
    a.database === "PostgreSQL" ? -1 : b.database === "PostgreSQL" ? 1 : 0,
  );
  return [
    ...ordered.map((f) => ({
      name: idle(f.database),
      opsPerSec: 0,
      mib: f.idleMib,
      compare: "mib" as const,
      baseline: f.database === "PGlite" && onPostgres ? idle("PostgreSQL") : undefined,
      note:
        f.database === "PGlite"
          ? `${bound(f.idleMib, IDLE_BOUND_MIB)}; initdb ran in this start`
          : `${IDLE_SECONDS} s after listening`,
    })),
    ...ordered.map((f) => ({
      name: peak(f.database),
      opsPerSec: f.opsPerSec,
      mib: f.peakMib,
      compare: "mib" as const,
      baseline: f.database === "PGlite" && onPostgres ? peak("PostgreSQL") : undefined,
      note: `${f.database === "PGlite" ? `${bound(f.peakMib, PEAK_BOUND_MIB)}; ` : ""}${load(f)}`,
    })),
  ];
}
