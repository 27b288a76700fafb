import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./server-process.js";

const run = promisify(execFile);

/** A PostgreSQL cluster of the test's own (data directory and port), to stop and start at will. */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  /** `pg_ctl stop -m fast`: sessions are terminated, the server exits after a checkpoint. */
  stop(): Promise<void>;
  /** `pg_ctl start -w`: returns once the server accepts connections. */
  start(): Promise<void>;
  /** Stops the server (if running) and removes its directory. */
  destroy(): Promise<void>;
}

/**
 * The newest PostgreSQL server binaries: `SVC_PG_BIN`, else Debian's /usr/lib/postgresql/<v>/bin
 * (where .ci/run finds them too), else none.
 */
export function postgresBinaries(): string | undefined {
  const configured = process.env.SVC_PG_BIN;
  if (configured) return configured;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, "bin", "initdb")))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : join(root, newest, "bin");
}

/**
 * initdb and pg_ctl start on a free port. PostgreSQL refuses to run as root: as root the cluster
 * belongs to the system user `svcci` (created if missing), as .ci/run does.
 */
export async function startPrivatePostgres(bin: string): Promise<PrivatePostgres> {
  const dir = await mkdtemp(join(tmpdir(), "svc-fault-pg-"));
  const port = await freePort();
  const data = join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    await run("sh", ["-c", "id svcci >/dev/null 2>&1 || useradd --system --no-create-home svcci"]);
    await run("chown", ["svcci", dir]);
    await chmod(dir, 0o755);
  }
  const pg = async (command: string) => {
    const args = asRoot ? ["su", "svcci", "-s", "/bin/sh", "-c", command] : ["sh", "-c", command];
    const [file, ...rest] = args as [string, ...string[]];
    try {
      await run(file, rest, { timeout: 60_000 });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? "";
      throw new Error(`${command} failed: ${stderr || (error as Error).message}`);
    }
  };
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=100`;
  const start = () =>
    pg(`${bin}/pg_ctl -D ${data} -l ${dir}/server.log -w -t 30 -o "${options}" start`);
  let running = false;

  await pg(`${bin}/initdb -D ${data} -U postgres --auth=trust -E UTF8 --no-sync >/dev/null`);
  await start();
  running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await pg(`${bin}/pg_ctl -D ${data} -m fast -w stop`);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async destroy() {
      if (running) await pg(`${bin}/pg_ctl -D ${data} -m immediate -w stop`).catch(() => {});
      running = false;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
