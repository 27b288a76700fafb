import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { spawnNode } from "@svc/processes";

export interface ChildSenderConfig {
  server: string;
  home: string;
  to: string;
  peer: string;
  path: string;
  journal: string;
  lanes?: number;
  chunkBytes?: number;
}

/** One JSON line of send-child.mjs. */
export type ChildLine = {
  started?: string;
  progress?: number;
  total?: number;
  done?: { streamId: string; bytes: number; sha256: string; resumedBytes: number; seconds: number };
  rss?: { baseline: number; max: number };
  error?: string;
};

export interface ChildSender {
  process: ChildProcess;
  /** Its lines so far. */
  readonly lines: readonly ChildLine[];
  /** The first line (seen or to come) that `match` accepts. */
  waitFor(match: (line: ChildLine) => boolean): Promise<ChildLine>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

const SCRIPT = fileURLToPath(new URL("./send-child.mjs", import.meta.url));
const DIST = fileURLToPath(new URL("../../../dist/index.js", import.meta.url));

/** send-child.mjs in a new Node process, on the built package. */
export function spawnChildSender(config: ChildSenderConfig): ChildSender {
  if (!existsSync(DIST)) {
    throw new Error(
      "the child sender runs dist/: pnpm turbo run build --filter=@svc/transfer-peer",
    );
  }
  const child = spawnNode(SCRIPT, [JSON.stringify(config)]);
  const lines = () => child.jsonLines() as readonly ChildLine[];
  return {
    process: child.child,
    get lines() {
      return lines();
    },
    exited: child.ended.then((exit) => ({ ...exit, stderr: child.out.stderr })),
    // As long as the test allows: a large file takes what it takes.
    waitFor: (match) =>
      child.waitFor(() => lines().find(match), "the child sender's line", Number.POSITIVE_INFINITY),
  };
}
