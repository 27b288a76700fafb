import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
/** The bound the README's first command keeps to, after start and a short idle. */
const IDLE_BOUND_MIB = 200;
const IDLE_MS = 3000;

/** The process's resident set (VmRSS) in MiB, from /proc. */
function residentMib(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]) / 1024;
}

/** `node dist/main.js` on `dataDir`, as `pnpm start` runs it; resolves once it listens. */
async function startMain(dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH, SVC_PORT: "0", SVC_DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  await new Promise<void>((resolve, reject) => {
    lines.on("line", (line) => {
      if (line.includes('"listening"')) resolve();
    });
    child.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}

describe.skipIf(!existsSync("/proc/self/status"))("the embedded server's memory (Linux)", () => {
  let dataDir: string;
  const running: ChildProcess[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-embedded-memory-"));
  });
  afterAll(async () => {
    await Promise.all(running.map(stop));
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`stays within ${IDLE_BOUND_MIB} MiB resident after its first start (initdb) and a restart`, {
    timeout: 180_000,
  }, async () => {
    for (const start of ["first", "restart"]) {
      const server = await startMain(dataDir);
      running.push(server);
      await sleep(IDLE_MS);
      const mib = residentMib(server.pid as number);
      expect(mib, `${start}: ${mib.toFixed(0)} MiB`).toBeLessThanOrEqual(IDLE_BOUND_MIB);
      await stop(server);
    }
  });
});
