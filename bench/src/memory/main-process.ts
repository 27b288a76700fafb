import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { freePort, spawnNode } from "@svc/processes";
import type { ServerProcess } from "../harness/server-process.js";

/** The prekey server's entry point, as `pnpm start` runs it. */
const MAIN = fileURLToPath(new URL("./main.js", import.meta.resolve("@svc/prekey-server")));

/**
 * Variables of the C allocator, passed on to the server and named in the report: they change
 * what a process keeps resident.
 */
export const MALLOC_VARIABLES = /^(MALLOC_|GLIBC_TUNABLES$)/;

/**
 * Starts `node apps/prekey-server/dist/main.js` as deployed, configured by `env` alone (and the
 * allocator's variables of this process), on a free port; resolves once /healthz answers (the
 * bench's servers log errors only, so there is no "listening" line to wait for).
 */
export async function startMainProcess(env: Record<string, string>): Promise<ServerProcess> {
  const inherited = Object.entries(process.env).filter(
    (entry): entry is [string, string] =>
      entry[1] !== undefined && (entry[0] === "PATH" || MALLOC_VARIABLES.test(entry[0])),
  );
  const port = await freePort();
  const child = spawnNode(MAIN, [], {
    env: { ...Object.fromEntries(inherited), ...env, SVC_HOST: "127.0.0.1", SVC_PORT: `${port}` },
    output: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  while (!(await answers(`${url}/healthz`))) {
    if (!child.alive()) throw new Error(`the prekey server exited with ${await child.exited}`);
    await sleep(100);
  }
  return {
    url,
    pid: child.pid,
    async stop() {
      await child.stop("SIGTERM");
    },
  };
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

/** A process's resident set now (VmRSS) and its peak since it started (VmHWM), in MiB. */
export function residentMib(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]);
  return { now: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}
