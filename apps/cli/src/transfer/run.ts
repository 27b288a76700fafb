import { resolve } from "node:path";
import { ConfigError } from "@svc/node-kit";
import { type Program, UsageError } from "../command-line.js";
import { EXIT } from "../exit.js";
import { describeFailure } from "../failure.js";
import { type Problem, problemLine } from "../output.js";
import { commandUsage, parseTransferArgs, type TransferArgs, transferUsage } from "./args.js";
import { loadTransferConfig, startReceiver } from "./receiver-runtime.js";
import { type SendIo, sendCommand } from "./send.js";

export interface TransferCliIo extends SendIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** SVC_* variables; default process.env. */
  env?: Record<string, string | undefined>;
  /** Ends `receive` with exit 0 (SIGINT/SIGTERM in the real CLI). */
  signal?: AbortSignal;
}

/**
 * `svc transfer <argv>` (or `svc-transfer <argv>`: `program` says which); resolves to the exit
 * status (EXIT).
 */
export async function runTransferCli(
  program: Program,
  argv: readonly string[],
  io: TransferCliIo,
): Promise<number> {
  const env = io.env ?? process.env;
  const { name, tool } = program;
  let args: TransferArgs;
  try {
    args = parseTransferArgs(argv, env, name);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const usage =
      error.command === "receive" || error.command === "send"
        ? commandUsage(name, error.command)
        : transferUsage(name);
    io.stderr(`${tool}: ${error.message}\n\n${usage}`);
    return EXIT.usage;
  }
  if (args.command === "help") {
    io.stdout(args.text);
    return EXIT.ok;
  }
  const fail = (problem: Problem) => io.stderr(problemLine("error", problem, args.json, tool));
  try {
    return args.command === "receive"
      ? await receive(args, env, io, tool)
      : await sendCommand(args, io, fail, tool);
  } catch (error) {
    if (error instanceof ConfigError) {
      fail({ code: error.code, message: error.message });
      return EXIT.usage;
    }
    const failure = systemFailure(error) ??
      describeFailure(error, args.server, args.home) ?? {
        code: "INTERNAL",
        message: error instanceof Error ? error.message : String(error),
        exit: EXIT.failure,
      };
    fail(failure);
    return failure.exit;
  }
}

async function receive(
  args: Extract<TransferArgs, { command: "receive" }>,
  env: Record<string, string | undefined>,
  io: TransferCliIo,
  tool: string,
): Promise<number> {
  const config = loadTransferConfig(
    {
      ...env,
      SVC_LOG_LEVEL: env.SVC_LOG_LEVEL ?? "silent",
      SVC_SERVER: args.server,
      SVC_HOME: args.home,
      SVC_TRANSFER_DIR: resolve(args.dir),
      ...(args.port === undefined ? {} : { SVC_TRANSFER_PORT: String(args.port) }),
    },
    { store: "file", kt: args.kt },
  );
  const receiver = await startReceiver(config, {
    listenSettings: { port: "--port or SVC_TRANSFER_PORT", host: "SVC_TRANSFER_HOST" },
    onFinished(file) {
      const line = {
        streamId: file.streamId,
        name: file.name,
        bytes: file.size,
        sha256: file.sha256,
      };
      io.stdout(
        args.json
          ? JSON.stringify(line)
          : `received ${file.path} from ${file.sender}: ${file.size} bytes, sha256 ${file.sha256}`,
      );
    },
    onClientError: (error) => {
      const problem = describeFailure(error, args.server, args.home);
      if (problem) io.stderr(problemLine("warning", problem, args.json, tool));
    },
  });
  io.stderr(
    args.json
      ? JSON.stringify({ listening: receiver.url, address: receiver.address, dir: config.dir })
      : `${tool}: receiving for ${receiver.address} at ${receiver.url}; files go to ${config.dir}`,
  );
  await new Promise<void>((done) => {
    if (io.signal?.aborted) return done();
    io.signal?.addEventListener("abort", () => done(), { once: true });
  });
  await receiver.stop();
  return EXIT.ok;
}

/**
 * A port in use (said with the option and variable that set it), a file or directory that cannot
 * be used (said with its path): exit 1.
 */
function systemFailure(error: unknown): (Problem & { exit: number }) | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return undefined;
  return { code, message: (error as Error).message, exit: EXIT.failure };
}
