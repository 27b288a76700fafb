import { randomBytes } from "node:crypto";
import { createTestDatabase } from "@svc/db/testing";
import { type ServerProcess, startServerProcess } from "../harness/server-process.js";

/** Starts one prekey server configured by `env`; the bench forks a process per instance. */
export type StartInstance = (env: Record<string, string>) => Promise<ServerProcess>;

/** The instances of one configuration, on their own fresh database. */
export interface Deployment {
  urls: string[];
  /** The instances' process ids, where they run in processes of their own. */
  pids: number[];
  /** "PostgreSQL" or "PGlite". */
  database: string;
  /** The operator key every instance signs tree heads with. */
  ktSigningKey: string;
  /** The VRF secret key (SVC_KT_VRF_KEY, base64) every instance computes the log's indexes with. */
  ktVrfKey: string;
  stop(): Promise<void>;
}

export interface DeploymentOptions {
  instances: number;
  /** A PostgreSQL server on which a new database is made (and dropped after); else PGlite. */
  postgresUrl?: string | undefined;
  start?: StartInstance;
}

/**
 * `instances` prekey servers on one new database, as deployed behind a load balancer: one KT
 * signing key and one KT VRF key, inbox and KT on. Rate limits are off (every client here has one
 * IP) and logging is at `error`, so that any 5xx prints its reason. PGlite belongs to one
 * process: one instance.
 */
export async function startDeployment(options: DeploymentOptions): Promise<Deployment> {
  const { instances, postgresUrl } = options;
  const start = options.start ?? startServerProcess;
  if (postgresUrl === undefined && instances !== 1) {
    throw new RangeError("more than one instance needs PostgreSQL");
  }
  const database = postgresUrl === undefined ? undefined : await createTestDatabase(postgresUrl);
  const ktSigningKey = randomBytes(32).toString("base64");
  const ktVrfKey = randomBytes(32).toString("base64");
  const env: Record<string, string> = {
    SVC_LOG_LEVEL: "error",
    SVC_RATE_LIMIT: "off",
    SVC_KT: "on",
    SVC_KT_SIGNING_KEY: ktSigningKey,
    SVC_KT_VRF_KEY: ktVrfKey,
    SVC_INBOX: "on",
    ...(database ? { DATABASE_URL: database.url } : {}),
  };
  const servers: ServerProcess[] = [];
  try {
    // One after the other: the first migrates the new database.
    for (let i = 0; i < instances; i++) servers.push(await start(env));
  } catch (error) {
    await Promise.all(servers.map((server) => server.stop()));
    await database?.drop();
    throw error;
  }
  return {
    urls: servers.map((server) => server.url),
    pids: servers.flatMap((server) => (server.pid === undefined ? [] : [server.pid])),
    database: database ? "PostgreSQL" : "PGlite",
    ktSigningKey,
    ktVrfKey,
    async stop() {
      await Promise.all(servers.map((server) => server.stop()));
      await database?.drop();
    },
  };
}
