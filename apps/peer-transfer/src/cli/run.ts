import { resolve } from "node:path";
import { describeFailure, EXIT, type Problem, problemLine } from "@svc/cli/kit";
import { ConfigError } from "@svc/node-kit";
import { startTransferReceiver as startReceiver } from "@svc/transfer-peer";
import { loadTransferConfig } from "../config.js";
import { commandUsage, parseTransferArgs, type TransferArgs, USAGE, UsageError } from "./args.js";
import { type SendIo, sendCommand } from "./send.js";

export interface TransferCliIo extends SendIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** SVC_* variables; default process.env. */
  env?: Record<string, string | undefined>;
  /** Ends `receive` with exit 0 (SIGINT/SIGTERM in the real CLI). */
  signal?: AbortSignal;
}

const TOOL = "svc-transfer";

/** `svc-transfer <argv>`; resolves to the exit status (svc's EXIT). */
export async function runTransferCli(argv: readonly string[], io: TransferCliIo): Promise<number> {
  const env = io.env ?? process.env;
  let args: TransferArgs;
  try {
    args = parseTransferArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const usage = error.command === undefined ? USAGE : commandUsage(error.command);
    io.stderr(`${TOOL}: ${error.message}\n\n${usage}`);
    return EXIT.usage;
  }
  if (args.command === "help") {
    io.stdout(args.text);
    return EXIT.ok;
  }
  const fail = (problem: Problem) => io.stderr(problemLine("error", problem, args.json, TOOL));
  try {
    return args.command === "receive"
      ? await receive(args, env, io)
      : await sendCommand(args, io, fail);
  } catch (error) {
    if (error instanceof ConfigError) {
      fail({ code: "CONFIG", message: error.message });
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
      if (problem) io.stderr(problemLine("warning", problem, args.json, TOOL));
    },
  });
  io.stderr(
    args.json
      ? JSON.stringify({ listening: receiver.url, address: receiver.address, dir: config.dir })
      : `${TOOL}: receiving for ${receiver.address} at ${receiver.url}; files go to ${config.dir}`,
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
