import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Closer } from "./server.js";

export const BIN = fileURLToPath(new URL("../../bin/svc.js", import.meta.url));
/** The bin runs the build (dist/), which `pnpm build` (or `pnpm svc`) makes; CI builds first. */
export const built = existsSync(fileURLToPath(new URL("../../dist/cli.js", import.meta.url)));

/** A process started by a test: its output as it comes, and its exit status once it ends. */
export interface Spawned {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

/** `node bin/svc.js <argv>` as a shell would start it, killed after the test if still running. */
export function spawnSvc(
  closers: Closer[],
  argv: string[],
  env: Record<string, string> = {},
): Spawned {
  return spawnCommand(closers, process.execPath, [BIN, ...argv], env);
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
  return spawnCommand(closers, "script", ["-qfec", command, "/dev/null"], env, "pipe");
}

function spawnCommand(
  closers: Closer[],
  file: string,
  args: string[],
  env: Record<string, string>,
  stdin: "pipe" | "ignore" = "ignore",
): Spawned {
  const child = spawn(file, args, {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: [stdin, "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "" };
  child.stdout?.on("data", (chunk: Buffer) => {
    out.stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out.stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  closers.push(async () => {
    if (child.exitCode === null) child.kill("SIGKILL");
    await exited;
  });
  return { child, out, exited };
}

function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}
