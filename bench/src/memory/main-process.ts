import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
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
  const child = spawn(process.execPath, [MAIN], {
    env: { ...Object.fromEntries(inherited), ...env, SVC_HOST: "127.0.0.1", SVC_PORT: `${port}` },
    stdio: ["ignore", "inherit", "inherit"],
  });
  let exitCode: number | null | undefined;
  const exited = once(child, "exit").then(([code]) => {
    exitCode = code as number | null;
  });
  const url = `http://127.0.0.1:${port}`;
  while (!(await answers(`${url}/healthz`))) {
    if (exitCode !== undefined) throw new Error(`the prekey server exited with ${exitCode}`);
    await sleep(100);
  }
  return {
    url,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await exited;
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

/** A port nothing listens on now (the OS's pick, released at once). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, "close");
  return port;
}

/** A process's resident set now (VmRSS) and its peak since it started (VmHWM), in MiB. */
export function residentMib(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]);
  return { now: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}
