import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type SpawnedProcess, spawnProcess } from "@svc/processes";
import type { Closer } from "./server.js";

export const BIN = fileURLToPath(new URL("../../bin/svc.js", import.meta.url));
/** The bin runs the build (dist/), which `pnpm build` (or `pnpm svc`) makes; CI builds first. */
export const built = existsSync(fileURLToPath(new URL("../../dist/cli.js", import.meta.url)));

/** A process started by a test: its output as it comes, and its exit status once it ends. */
export type Spawned = SpawnedProcess;

/** `node bin/svc.js <argv>` as a shell would start it, killed after the test if still running. */
export function spawnSvc(
  closers: Closer[],
  argv: string[],
  env: Record<string, string> = {},
): Spawned {
  return spawnProcess(process.execPath, [BIN, ...argv], { env, closers });
}

/**
 * `svc <argv>` on a pseudo terminal, through util-linux's `script` (in Debian's essential
 * bsdutils): what is written to the child's stdin is typed, stdout is what the terminal shows.
 */
export function spawnSvcOnTerminal(
  closers: Closer[],
  argv: string[],
  env: Record<string, string> = {},
): Spawned {
  const command = [process.execPath, BIN, ...argv].map(shellQuote).join(" ");
  return spawnProcess("script", ["-qfec", command, "/dev/null"], { env, closers, stdin: "pipe" });
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}
