import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Exit, spawnNode } from "@svc/processes";
import { TEST_KT_SIGNING_KEY, TEST_KT_VRF_KEY } from "../../../src/test-support/app.js";

export { freePort } from "@svc/processes";

/** The built server, as `pnpm start` runs it (the root `pnpm test` builds before testing). */
export const MAIN = fileURLToPath(new URL("../../../dist/main.js", import.meta.url));

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when a signal ended it) and that signal. */
  readonly exited: Promise<Exit>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** The JSON log lines of stdout so far. */
  logs(): Array<Record<string, unknown>>;
  /** True until the process has exited. */
  alive(): boolean;
  /** Resident set size of the process now (Linux: VmRSS of /proc/<pid>/status). */
  rssBytes(): Promise<number>;
  /** Sends `signal` and waits for the exit; a process still there after 15 s is killed. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/** What a test started, to undo after it, last started first. */
export type Closer = () => Promise<void>;

export async function runClosers(closers: Closer[]): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close();
}

/**
 * `node dist/main.js` with `env` (on top of a test configuration: port 0, the test KT key, a
 * temporary data directory, info logs); resolves once it logs that it is listening.
 */
export async function startServerProcess(
  closers: Closer[],
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  if (!existsSync(MAIN)) {
    throw new Error(`${MAIN} is missing: build first (pnpm build, or the root pnpm test)`);
  }
  const dataDir = await mkdtemp(join(tmpdir(), "svc-fault-server-"));
  closers.push(() => rm(dataDir, { recursive: true, force: true }));
  const server = spawnNode(MAIN, [], {
    env: {
      SVC_HOST: "127.0.0.1",
      SVC_PORT: "0",
      SVC_DATA_DIR: dataDir,
      SVC_KT_SIGNING_KEY: TEST_KT_SIGNING_KEY,
      SVC_KT_VRF_KEY: TEST_KT_VRF_KEY,
      SVC_LOG_LEVEL: "info",
      ...env,
    },
    closers,
  });
  const url = await server.listening(Number.POSITIVE_INFINITY);
  const pid = server.pid;
  return {
    url,
    pid,
    child: server.child,
    exited: server.ended,
    output: () => server.out.stdout + server.out.stderr,
    logs: () => [...server.jsonLines()],
    alive: server.alive,
    async rssBytes() {
      const status = await readFile(`/proc/${pid}/status`, "utf8");
      const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
      if (kib === undefined) throw new Error("no VmRSS");
      return Number(kib) * 1024;
    },
    stop: (signal) => server.stop(signal),
  };
}
