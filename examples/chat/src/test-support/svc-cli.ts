import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The `svc` command line of this repository, as `pnpm build` leaves it (CI builds first). */
const BIN = fileURLToPath(new URL("../../../../apps/cli/bin/svc.js", import.meta.url));
export const cliBuilt = existsSync(
  fileURLToPath(new URL("../../../../apps/cli/dist/cli.js", import.meta.url)),
);

/** A running `svc`: its output so far, and its exit status once it ends. */
export interface SvcRun {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  readonly exited: Promise<number | null>;
}

/** `svc <argv>` with the home `home` against `server`; kill it (or await it) in the test. */
export function svc(server: string, home: string, argv: string[]): SvcRun {
  const child = spawn(process.execPath, [BIN, ...argv], {
    env: { ...process.env, SVC_SERVER: server, SVC_HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Runs `svc <argv> --json` to its end; its stdout's JSON lines, or throws with its stderr. */
export async function svcJson(
  server: string,
  home: string,
  argv: string[],
): Promise<Array<Record<string, unknown>>> {
  const run = svc(server, home, [...argv, "--json"]);
  const status = await run.exited;
  if (status !== 0) throw new Error(`svc ${argv.join(" ")} exited ${status}: ${run.stderr()}`);
  return jsonLines(run.stdout());
}

export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
