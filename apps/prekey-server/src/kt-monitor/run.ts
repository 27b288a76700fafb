import { parseArgs } from "node:util";
import { decodeBase64, isValidAddress, normalizeAddress } from "@svc/canonical";
import { type FetchFunction, httpLogClient, KtVerifyError } from "@svc/kt-verify";
import { KtMonitor } from "./monitor.js";

export const USAGE = `usage: svc-kt monitor --url <base-url> [--watch <address>]... [--interval <ms>] [--once]
                      [--log-key <base64 operator public key>]

Follows the key-transparency log of a prekey server: checks every STH's signature, that it extends
the previous one, and that the leaves served hash to its roots; prints one JSON object per line
("sth" for each new verified tree head, "change" for each change of a watched address).
Without --log-key the operator key is taken from GET /v1/kt/log_id on first contact.

exit status: 0 stopped (or --once done), 1 the log could not be reached (--once),
             2 usage error, 3 the log failed a check (fork, shrink, bad signature or proof)`;

export const EXIT = { ok: 0, unreachable: 1, usage: 2, verification: 3 } as const;

export interface CliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  fetch?: FetchFunction;
  /** Stops a watching monitor (SIGINT/SIGTERM in the real CLI). */
  signal?: AbortSignal;
}

/** `svc-kt <args>`; resolves to the exit status. */
export async function runKtCli(argv: readonly string[], io: CliIo): Promise<number> {
  let options: MonitorArgs;
  try {
    options = parseMonitorArgs(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}\n${USAGE}`);
    return EXIT.usage;
  }
  const client = httpLogClient(options.url, io.fetch);
  const report = (event: string, fields: Record<string, unknown>) =>
    io.stderr(JSON.stringify({ event, ...fields }));
  try {
    const logPublicKey = options.logKey ?? (await client.logPublicKey());
    const monitor = new KtMonitor({
      client,
      logPublicKey,
      watch: options.watch,
      onEvent: (event) => io.stdout(JSON.stringify(event)),
    });
    if (options.once) {
      await monitor.step();
      return EXIT.ok;
    }
    while (!io.signal?.aborted) {
      try {
        await monitor.step();
      } catch (error) {
        if (!(error instanceof KtVerifyError && error.code === "KT_FETCH_FAILED")) throw error;
        report("warning", { code: error.code, message: error.message });
      }
      await sleep(options.intervalMs, io.signal);
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof KtVerifyError) {
      report("error", { code: error.code, message: error.message });
      return error.code === "KT_FETCH_FAILED" ? EXIT.unreachable : EXIT.verification;
    }
    throw error;
  }
}

interface MonitorArgs {
  url: string;
  watch: string[];
  intervalMs: number;
  once: boolean;
  logKey: Uint8Array | undefined;
}

function parseMonitorArgs(argv: readonly string[]): MonitorArgs {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      url: { type: "string" },
      watch: { type: "string", multiple: true },
      interval: { type: "string" },
      once: { type: "boolean" },
      "log-key": { type: "string" },
    },
  });
  if (positionals.length !== 1 || positionals[0] !== "monitor") {
    throw new Error("the only command is: monitor");
  }
  if (values.url === undefined || !/^https?:\/\/[^/]/.test(values.url)) {
    throw new Error("--url must be an http(s) URL");
  }
  const interval = values.interval ?? "10000";
  if (!/^\d+$/.test(interval) || Number(interval) < 10) {
    throw new Error("--interval must be a whole number of milliseconds, at least 10");
  }
  const watch = (values.watch ?? []).map((address) => {
    if (!isValidAddress(address)) throw new Error(`--watch ${address}: not a valid address`);
    return normalizeAddress(address);
  });
  let logKey: Uint8Array | undefined;
  if (values["log-key"] !== undefined) {
    try {
      logKey = decodeBase64(values["log-key"], 32);
    } catch {
      throw new Error("--log-key must be the base64 of a 32-byte Ed25519 public key");
    }
  }
  return {
    url: values.url,
    watch,
    intervalMs: Number(interval),
    once: values.once ?? false,
    logKey,
  };
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
