import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A built copy of the workspace at `ref`, made once per commit under the system's temporary
 * directory and reused by later comparisons: the tree from `git archive` (no checkout of this
 * repository is touched), its dependencies from the pnpm store, the bench and what it needs built.
 */
export function builtCheckout(
  repository: string,
  ref: string,
  log: (line: string) => void,
): string {
  const commit = git(repository, ["rev-parse", "--verify", `${ref}^{commit}`]);
  const dir = join(tmpdir(), `svc-bench-${commit.slice(0, 12)}`);
  const built = join(dir, ".svc-bench-built");
  if (existsSync(built)) {
    log(`base ${commit.slice(0, 12)}: reusing ${dir}`);
    return dir;
  }
  log(`base ${commit.slice(0, 12)}: extracting and building in ${dir}`);
  mkdirSync(dir, { recursive: true });
  execFileSync(
    "sh",
    ["-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", repository, commit, dir],
    { stdio: ["ignore", 2, 2] },
  );
  const pnpm = pnpmCommand();
  run(dir, pnpm, ["install", "--prefer-offline", "--frozen-lockfile"]);
  run(dir, pnpm, [
    "exec",
    "turbo",
    "run",
    "build",
    "--filter=@svc/bench...",
    "--output-logs=errors-only",
  ]);
  writeFileSync(built, `${commit}\n`);
  return dir;
}

/** The pnpm that runs this script (`pnpm bench:compare`), else the repository's pinned one. */
function pnpmCommand(): [string, ...string[]] {
  const execPath = process.env.npm_execpath;
  if (execPath?.includes("pnpm")) return [process.execPath, execPath];
  return ["npx", "-y", "pnpm@10.34.8"];
}

function run(cwd: string, [command, ...prefix]: [string, ...string[]], args: string[]): void {
  execFileSync(command, [...prefix, ...args], { cwd, stdio: ["ignore", 2, 2] });
}

function git(repository: string, args: string[]): string {
  return execFileSync("git", ["-C", repository, ...args], { encoding: "utf8" }).trim();
}
