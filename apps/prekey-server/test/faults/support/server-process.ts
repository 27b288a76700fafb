import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TEST_KT_SIGNING_KEY, TEST_KT_VRF_KEY } from "../../../src/test-support/app.js";

/** The built server, as `pnpm start` runs it (the root `pnpm test` builds before testing). */
export const MAIN = fileURLToPath(new URL("../../../dist/main.js", import.meta.url));

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Resolves with the exit code (null when a signal ended it) and that signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** The JSON log lines of stdout so far. */
  logs(): Array<Record<string, unknown>>;
  /** True until the process has exited. */
  alive(): boolean;
  /** Resident set size of the process now (Linux: VmRSS of /proc/<pid>/status). */
  rssBytes(): Promise<number>;
  /** Sends `signal` and waits for the exit; a process still there after 15 s is killed. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
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
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH ?? "",
      SVC_HOST: "127.0.0.1",
      SVC_PORT: "0",
      SVC_DATA_DIR: dataDir,
      SVC_KT_SIGNING_KEY: TEST_KT_SIGNING_KEY,
      SVC_KT_VRF_KEY: TEST_KT_VRF_KEY,
      SVC_LOG_LEVEL: "info",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  let running = true;
  void exited.then(() => {
    running = false;
  });
  const logs = () =>
    stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (running) child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  closers.push(async () => {
    await stop("SIGKILL");
  });

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const listening = logs().find((line) => line.message === "listening");
      if (typeof listening?.url === "string") {
        clearInterval(timer);
        resolve(listening.url);
      } else if (!running) {
        clearInterval(timer);
        reject(new Error(`server exited before listening:\n${stdout}${stderr}`));
      }
    }, 20);
  });
  const pid = child.pid as number;
  return {
    url,
    pid,
    child,
    exited,
    output: () => stdout + stderr,
    logs,
    alive: () => running,
    async rssBytes() {
      const status = await readFile(`/proc/${pid}/status`, "utf8");
      const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
      if (kib === undefined) throw new Error("no VmRSS");
      return Number(kib) * 1024;
    },
    stop,
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
