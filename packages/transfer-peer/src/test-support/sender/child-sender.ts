import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

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
  lines: ChildLine[];
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
  const child = spawn(process.execPath, [SCRIPT, JSON.stringify(config)], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: ChildLine[] = [];
  const waiters: Array<{
    match: (line: ChildLine) => boolean;
    resolve: (line: ChildLine) => void;
  }> = [];
  createInterface({ input: child.stdout }).on("line", (text) => {
    const line = JSON.parse(text) as ChildLine;
    lines.push(line);
    for (const waiter of waiters.splice(0)) {
      if (waiter.match(line)) waiter.resolve(line);
      else waiters.push(waiter);
    }
  });
  let stderr = "";
  child.stderr.on("data", (data) => {
    stderr += String(data);
  });
  const exited = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stderr: string;
  }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stderr })));
  return {
    process: child,
    lines,
    exited,
    waitFor: (match) => {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return Promise.race([
        new Promise<ChildLine>((resolve) => waiters.push({ match, resolve })),
        exited.then(({ code, signal, stderr }) => {
          throw new Error(
            `the child sender exited (${code ?? signal}) first:\n${stderr}\n${JSON.stringify(lines.at(-1))}`,
          );
        }),
      ]);
    },
  };
}
