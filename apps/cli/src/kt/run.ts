import { type FetchFunction, httpLogClient, KtMonitor, KtVerifyError } from "@svc/kt-verify";
import { type Program, UsageError } from "../command-line.js";
import { EXIT } from "../exit.js";
import { type KtArgs, ktUsage, type MonitorArgs, parseKtArgs } from "./args.js";
import { jsonOutput, textOutput } from "./output.js";
import { runWitness } from "./witness.js";

export interface KtIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  fetch?: FetchFunction;
  /** Stops a watching monitor or a witness (SIGINT/SIGTERM in the real CLI). */
  signal?: AbortSignal;
  /** Where SVC_WITNESS_DIR is read; the real CLI passes process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** `svc kt <args>` (or `svc-kt <args>`: `program` says which); resolves to the exit status. */
export async function runKtCli(
  program: Program,
  argv: readonly string[],
  io: KtIo,
): Promise<number> {
  let args: KtArgs;
  try {
    args = parseKtArgs(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`${error.message}\n${ktUsage(program.name)}`);
    return EXIT.usage;
  }
  if (args.command === "help") {
    io.stdout(ktUsage(program.name));
    return EXIT.ok;
  }
  if (args.command === "witness") return runWitness(args, io, program.tool);
  return runMonitor(args, io, program.tool);
}

async function runMonitor(args: MonitorArgs, io: KtIo, tool: string): Promise<number> {
  const output = args.json ? jsonOutput : textOutput(tool);
  const client = httpLogClient(args.url, io.fetch);
  try {
    // Without --log-key both keys come from GET /v1/kt/log_id now; with it, a VRF key not given
    // is read from there by the monitor when a v2 leaf first needs it.
    let logPublicKey = args.logKey;
    let vrfPublicKey = args.vrfKey;
    if (logPublicKey === undefined) {
      const logId = await client.logId();
      logPublicKey = logId.publicKey;
      vrfPublicKey ??= logId.vrfPublicKey;
    }
    const monitor = new KtMonitor({
      client,
      logPublicKey,
      watch: args.watch,
      ...(vrfPublicKey === undefined ? {} : { vrfPublicKey }),
      onEvent: (event) => io.stdout(output.event(event)),
    });
    if (args.once) await monitor.step();
    else {
      await monitor.follow({
        intervalMs: args.intervalMs,
        signal: io.signal,
        onUnreachable: (error) => io.stderr(output.problem("warning", error)),
      });
    }
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof KtVerifyError)) throw error;
    io.stderr(output.problem("error", error));
    return error.code === "KT_FETCH_FAILED" ? EXIT.failure : EXIT.verification;
  }
}
