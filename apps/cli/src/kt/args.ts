import { decodeBase64, isValidAddress, normalizeAddress } from "@svc/canonical";
import { ED25519_TYPE, isValidKeyName, parseVerifierKey, type Verifier } from "@svc/signed-note";
import { readCommandLine, UsageError } from "../command-line.js";

/** The usage of `svc kt` (name "svc kt") or of its alias `svc-kt`; svc's adds kt verify. */
export function ktUsage(name: string): string {
  const verify =
    name === "svc kt"
      ? `\n       svc kt verify <address> [options]   (svc kt verify --help: svc's options)`
      : "";
  return `usage: ${name} monitor --url <base-url> [--watch <address>]... [--interval <ms>] [--once]
                      [--log-key <base64 operator public key>] [--vrf-key <base64 VRF public key>]
                      [--json]
       ${name} witness --log <log verifier key> [--log <key>]... [--dir <dir>] [--name <name>]
                      [--port <port>] [--host <host>] [--print-key] [--json]
       ${name} --help${verify}

monitor: follows the key-transparency log of a prekey server: checks every STH's signature, that
it extends the previous one, and that the leaves served hash to its roots; prints one line per
event ("sth" for each new verified tree head, "change" for each change of a watched address):
text by default, one JSON object per line with --json.
Without --log-key the operator key is taken from GET /v1/kt/log_id on first contact; so is the
VRF key (format-3 logs, whose v2 leaves name no address) without --vrf-key. A watched address's
v2 leaves are found by its VRF index (GET /v1/kt/vrf/{address}, checked under the VRF key) and
reported without keys: a v2 leaf only commits to them (and to the last-resort KEM key: an
identity leaf that follows another of the address, that key set or replaced, is an "identity
updated" change with previousLeafIndex).

witness: serves a C2SP tlog-witness (POST /add-checkpoint, GET /health) that cosigns the
checkpoints of the logs given by --log (note verifier keys of type 0x01, named by the log's
origin) for as long as each log stays append-only. --dir (default $SVC_WITNESS_DIR, else
./svc-witness) holds witness-key (made at first start, mode 0600, named --name, default
svc-witness) and logs/ (the latest cosigned checkpoint of each log; one process per --dir).
--port 7380 (0: any free port), --host 127.0.0.1. Prints its verifier key and URL once
listening, then one line per request ("cosigned" or "refused"). --print-key prints the
verifier key (making the key if needed) and exits; it needs no --log.

exit status: 0 stopped (SIGINT/SIGTERM), or --once / --print-key done,
             1 the log could not be reached (monitor --once), or the witness could not start
               (port in use, bad key file, state directory locked),
             2 usage error, 3 the log failed a check (fork, shrink, bad signature or proof)`;
}

export type KtArgs = { command: "help" } | MonitorArgs | WitnessArgs;

export interface MonitorArgs {
  command: "monitor";
  url: string;
  watch: string[];
  intervalMs: number;
  once: boolean;
  logKey: Uint8Array | undefined;
  /** The log's VRF public key (--vrf-key); unset: read from GET /v1/kt/log_id. */
  vrfKey: Uint8Array | undefined;
  json: boolean;
}

export interface WitnessArgs {
  command: "witness";
  logs: Verifier[];
  dir: string;
  /** Unset: the key file's name, or svc-witness for a new key. */
  name: string | undefined;
  port: number;
  host: string;
  printKey: boolean;
  json: boolean;
}

/** The witness's default port. */
export const WITNESS_PORT = 7380;
/** The name of a new witness key when --name is not given. */
export const WITNESS_NAME = "svc-witness";

/**
 * Parses `svc kt <args>` (or `svc-kt <args>`); throws an Error that says what is wrong, to print
 * above the usage.
 * `env` supplies SVC_WITNESS_DIR.
 */
export function parseKtArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): KtArgs {
  if (argv[0] === "witness") return parseWitnessArgs(argv.slice(1), env);
  const { values, positionals } = readCommandLine(argv, {
    url: { type: "string" },
    watch: { type: "string", multiple: true },
    interval: { type: "string" },
    once: { type: "boolean" },
    "log-key": { type: "string" },
    "vrf-key": { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return { command: "help" };
  if (positionals.length !== 1 || positionals[0] !== "monitor") {
    throw new UsageError("the commands are: monitor, witness", undefined);
  }
  if (values.url === undefined || !/^https?:\/\/[^/]/.test(values.url)) {
    throw new UsageError("--url must be an http(s) URL", undefined);
  }
  const interval = values.interval ?? "10000";
  if (!/^\d+$/.test(interval) || Number(interval) < 10) {
    throw new UsageError(
      "--interval must be a whole number of milliseconds, at least 10",
      undefined,
    );
  }
  const watch = (values.watch ?? []).map((address) => {
    if (!isValidAddress(address))
      throw new UsageError(`--watch ${address}: not a valid address`, undefined);
    return normalizeAddress(address);
  });
  let logKey: Uint8Array | undefined;
  if (values["log-key"] !== undefined) {
    try {
      logKey = decodeBase64(values["log-key"], 32);
    } catch {
      throw new UsageError(
        "--log-key must be the base64 of a 32-byte Ed25519 public key",
        undefined,
      );
    }
  }
  let vrfKey: Uint8Array | undefined;
  if (values["vrf-key"] !== undefined) {
    try {
      vrfKey = decodeBase64(values["vrf-key"], 32);
    } catch {
      throw new UsageError("--vrf-key must be the base64 of a 32-byte VRF public key", undefined);
    }
  }
  return {
    command: "monitor",
    url: values.url,
    watch,
    intervalMs: Number(interval),
    once: values.once ?? false,
    logKey,
    vrfKey,
    json: values.json ?? false,
  };
}

function parseWitnessArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): KtArgs {
  const { values, positionals } = readCommandLine(argv, {
    log: { type: "string", multiple: true },
    dir: { type: "string" },
    name: { type: "string" },
    port: { type: "string" },
    host: { type: "string" },
    "print-key": { type: "boolean" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return { command: "help" };
  if (positionals.length > 0)
    throw new UsageError(`witness takes no arguments, not ${positionals[0]}`, undefined);
  const printKey = values["print-key"] ?? false;
  const logs = (values.log ?? []).map(parseLogKey);
  if (logs.length === 0 && !printKey)
    throw new UsageError("witness needs at least one --log", undefined);
  const port = values.port ?? String(WITNESS_PORT);
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535) {
    throw new UsageError("--port must be a port number, 0 to 65535 (0: any free port)", undefined);
  }
  if (values.name !== undefined && !isValidKeyName(values.name)) {
    throw new UsageError(
      "--name must be a key name: not empty, without '+' or white space",
      undefined,
    );
  }
  const dir = values.dir ?? env.SVC_WITNESS_DIR ?? "./svc-witness";
  if (dir === "") throw new UsageError("--dir must not be empty", undefined);
  if (values.host === "") throw new UsageError("--host must not be empty", undefined);
  return {
    command: "witness",
    logs,
    dir,
    name: values.name,
    port: Number(port),
    host: values.host ?? "127.0.0.1",
    printKey,
    json: values.json ?? false,
  };
}

function parseLogKey(key: string): Verifier {
  let verifier: Verifier;
  try {
    verifier = parseVerifierKey(key);
  } catch (error) {
    throw new UsageError(
      `--log ${key}: not a verifier key (${(error as Error).message})`,
      undefined,
    );
  }
  if (verifier.type !== ED25519_TYPE) {
    throw new UsageError(
      `--log ${key}: a log's key has type 0x01 (Ed25519), not 0x0${verifier.type}`,
      undefined,
    );
  }
  return verifier;
}
