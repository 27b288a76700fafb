import { type ChildProcess, spawn } from "node:child_process";

/** What a test started, to undo after it, last started first. */
export type Closer = () => Promise<void>;

/** How a process ended: its exit code, or the signal that ended it (then `code` is null). */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnOptions {
  /** The child's environment: these variables and PATH, nothing else of this process's. */
  env?: Record<string, string>;
  /** Starts from this process's whole environment instead of PATH alone, as fork() does. */
  inheritEnv?: boolean;
  /** "ignore" (the default) or "pipe": a test that types into the child writes `child.stdin`. */
  stdin?: "ignore" | "pipe";
  /** "pipe" (the default) collects it in `out`; "inherit" shows it on this process's own. */
  output?: "pipe" | "inherit";
  /** An IPC channel: the child's `process.send` arrives through `nextMessage()`. */
  ipc?: boolean;
  /** Where the process's closer goes: it kills the process (SIGKILL) if running, and waits. */
  closers?: Closer[];
}

/** A process started by a test or a bench, its output as it comes. */
export interface SpawnedProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything written to stdout and to stderr so far ("" with `output: "inherit"`). */
  readonly out: { stdout: string; stderr: string };
  /** Resolves once it has ended and its output is read: the exit code, null if a signal ended it. */
  readonly exited: Promise<number | null>;
  /** Resolves as `exited` does, with the signal too. */
  readonly ended: Promise<Exit>;
  /** True until the process has ended. */
  alive(): boolean;
  /** The complete lines of stdout so far that are JSON objects (log lines, reports), parsed. */
  jsonLines(): ReadonlyArray<Record<string, unknown>>;
  /**
   * Resolves with the first value `find` returns other than undefined; `find` is asked now and
   * again on every output and message. Rejects, quoting the output, when the process ends first
   * or after `timeoutMs` (30 s; Infinity waits as long as the process runs).
   */
  waitFor<T>(find: () => T | undefined, what: string, timeoutMs?: number): Promise<T>;
  /**
   * The `url` of the first JSON line of stdout that has one: the servers' "listening" log line,
   * a witness's or a receiver's first line.
   */
  listening(timeoutMs?: number): Promise<string>;
  /**
   * Takes the first IPC message not taken yet (with `ipc: true`) that `match` accepts (any, by
   * default), waiting for it; rejects when the process ends first or after `timeoutMs` (never).
   */
  nextMessage(match?: (message: unknown) => boolean, timeoutMs?: number): Promise<unknown>;
  /** Sends an IPC message, if the channel is still open. */
  send(message: unknown): void;
  /** Sends `signal` (SIGTERM) if still running and waits for the end; SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Exit>;
}

const DEFAULT_WAIT_MS = 30_000;

/** `node <script> <args>` with Node's `flags` before the script: see {@link spawnProcess}. */
export function spawnNode(
  script: string,
  args: string[] = [],
  options: SpawnOptions & { flags?: string[] } = {},
): SpawnedProcess {
  const { flags = [], ...rest } = options;
  return spawnProcess(process.execPath, [...flags, script, ...args], rest);
}

/** Starts `command <args>` as a shell would, with only `options.env` (and PATH) set. */
export function spawnProcess(
  command: string,
  args: string[],
  options: SpawnOptions = {},
): SpawnedProcess {
  const output = options.output ?? "pipe";
  const stdio: Array<"ignore" | "pipe" | "inherit" | "ipc"> = [
    options.stdin ?? "ignore",
    output,
    output,
  ];
  if (options.ipc) stdio.push("ipc");
  const child = spawn(command, args, {
    env: {
      ...(options.inheritEnv ? process.env : { PATH: process.env.PATH ?? "" }),
      ...options.env,
    },
    stdio,
  });
  const out = { stdout: "", stderr: "" };
  const messages: unknown[] = [];
  const watchers = new Set<() => void>();
  const wake = () => {
    for (const watcher of watchers) watcher();
  };
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    out.stdout += chunk;
    wake();
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    out.stderr += chunk;
    wake();
  });
  child.on("message", (message) => {
    messages.push(message);
    wake();
  });
  let running = true;
  const ended = new Promise<Exit>((resolve) => {
    child.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
      running = false;
      resolve({ code, signal });
      wake();
    });
    child.once("error", (error) => {
      out.stderr += `${error.message}\n`;
      running = false;
      resolve({ code: null, signal: null });
      wake();
    });
  });
  const exited = ended.then(({ code }) => code);

  // Complete lines only, each parsed once: a child may write thousands of progress lines.
  const parsed: Array<Record<string, unknown>> = [];
  let parsedUpTo = 0;
  const jsonLines = (): ReadonlyArray<Record<string, unknown>> => {
    const end = out.stdout.lastIndexOf("\n") + 1;
    if (end > parsedUpTo) {
      for (const line of out.stdout.slice(parsedUpTo, end).split("\n")) {
        if (line.startsWith("{")) parsed.push(JSON.parse(line) as Record<string, unknown>);
      }
      parsedUpTo = end;
    }
    return parsed;
  };

  function waitFor<T>(find: () => T | undefined, what: string, timeoutMs = DEFAULT_WAIT_MS) {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        watchers.delete(check);
        clearTimeout(timer);
      };
      const fail = (why: string) => {
        done();
        reject(new Error(`${why} waiting for ${what}:\n${out.stdout}${out.stderr}`));
      };
      function check() {
        let found: T | undefined;
        try {
          found = find();
        } catch (error) {
          done();
          reject(error);
          return;
        }
        if (found !== undefined) {
          done();
          resolve(found);
        } else if (!running) {
          fail(`the process ended (${child.exitCode ?? child.signalCode})`);
        }
      }
      watchers.add(check);
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => fail(`timed out after ${timeoutMs} ms`), timeoutMs);
      }
      check();
    });
  }

  const stop = async (signal: NodeJS.Signals = "SIGTERM", graceMs = 15_000) => {
    if (running) child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    try {
      return await ended;
    } finally {
      clearTimeout(timer);
    }
  };
  options.closers?.push(async () => {
    await stop("SIGKILL");
  });

  return {
    child,
    pid: child.pid ?? -1,
    out,
    exited,
    ended,
    alive: () => running,
    jsonLines,
    waitFor,
    listening: (timeoutMs) =>
      waitFor(
        () => jsonLines().find((line) => typeof line.url === "string")?.url as string | undefined,
        "a line with its url",
        timeoutMs,
      ),
    nextMessage: async (match = () => true, timeoutMs = Number.POSITIVE_INFINITY) => {
      const take = () => {
        const index = messages.findIndex(match);
        return index === -1 ? undefined : { message: messages.splice(index, 1)[0] };
      };
      return (await waitFor(take, "a message", timeoutMs)).message;
    },
    send(message) {
      if (child.connected) child.send(message as Parameters<ChildProcess["send"]>[0]);
    },
    stop,
  };
}
