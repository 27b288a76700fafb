import { isValidAddress, normalizeAddress } from "@svc/canonical";
import { type ArgsEnv, DEFAULT_SERVER, type GlobalArgs, resolveGlobalOptions } from "../args.js";
import {
  GLOBAL_OPTION_NAMES,
  GLOBAL_OPTIONS,
  onlyOptions,
  readCommandLine,
  UsageError,
} from "../command-line.js";

export const DEFAULT_PORT = 8787;
export const DEFAULT_LANES = 4;
export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;
/** The largest chunk a receiver accepts by default (16 MiB of data). */
export const MAX_CHUNK_BYTES = 16 * 1024 * 1024;
const MAX_LANES = 64;

const EXIT_STATUS = `exit status: 0 ok, 1 failure (a peer or the server refused or could not be reached,
             the receiver serves another address, the file or the key store could not be used,
             the port is in use), 2 usage error, 3 key-transparency verification failed,
             5 no identity in the home (run svc init), 130 send interrupted by SIGINT or SIGTERM
             (run the same command again to resume it)`;

const options = (name: string) => `options (before or after the command), shared with svc:
  --server <url>  the prekey server (default: $SVC_SERVER, else ${DEFAULT_SERVER})
  --home <dir>    the key store made by svc init (default: $SVC_HOME, else the per-user
                  directory svc uses)
  --json          one JSON object per line on stdout, errors as {"error","message"} on stderr
  --no-kt         accept a prekey server without a key-transparency log (keys then trusted on
                  first use only); by default such a server is refused (exit 3)
  -h, --help      this help; ${name} <command> --help for one command's`;

/** The usage of `svc transfer` (name "svc transfer") or of its alias `svc-transfer`. */
export const transferUsage = (name: string) => `usage: ${name} [options] <command> [<args>]

End-to-end encrypted, resumable file transfer between two svc identities.

commands:
  receive --dir <dir> [--port <port>]
                    receive files into <dir> until SIGINT or SIGTERM
  send <file> --to <address> --peer <url> [--lanes <n>] [--chunk-bytes <bytes>]
                    send <file> to <address>'s receiver at <url>; resumes an interrupted send

${options(name)}

${EXIT_STATUS}`;

export type CommandName = "receive" | "send";

const COMMAND_USAGE: Record<CommandName, (name: string) => string> = {
  receive: (name) => `usage: ${name} receive --dir <dir> [--port <port>] [options]

Serves the transfer routes for the home's identity on 127.0.0.1:<port> (default: $SVC_TRANSFER_PORT,
else ${DEFAULT_PORT}; $SVC_TRANSFER_HOST sets the interface) and writes each finished file into <dir>
once its SHA-256 matches, printing one line per file ({"streamId","name","bytes","sha256"} with
--json). Partial data and stream state are kept under <dir>/.svc-transfer, so a receiver that
stopped resumes the streams it had. Runs until SIGINT or SIGTERM (exit 0).

Files are saved 0600, under the sender's name made safe. A sender may hold at most
$SVC_TRANSFER_MAX_STREAMS_PER_SENDER unfinished streams (default 16) and
$SVC_TRANSFER_MAX_RESERVED_BYTES_PER_SENDER bytes of them (64 GiB; all senders together
$SVC_TRANSFER_MAX_RESERVED_BYTES, 256 GiB), each stream at most $SVC_TRANSFER_MAX_STREAM_BYTES
(64 GiB); a stream idle for $SVC_TRANSFER_PARTIAL_TTL_MS (24 hours) expires with its partial data.`,
  send: (
    name,
  ) => `usage: ${name} send <file> --to <address> --peer <url> [--lanes <n>] [--chunk-bytes <bytes>] [options]

Encrypts <file> under a new stream key, announces it to <address> (whose svc identity runs the
receiver at <url>) in a ratchet-encrypted control message, and sends it in chunks over <n> parallel
lanes (default ${DEFAULT_LANES}, at most ${MAX_LANES}) of <bytes> each (default ${DEFAULT_CHUNK_BYTES}, at most ${MAX_CHUNK_BYTES}).
Shows a progress bar on a terminal; prints {"streamId","bytes","sha256","seconds","resumedBytes"}
with --json. Run again with the same file, --to and --peer after an interruption on either side:
it resumes the same stream from the receiver's state (lanes and chunk size stay those of the first
run), re-sending no acknowledged chunk.`,
};

export function commandUsage(name: string, command: CommandName): string {
  return `${COMMAND_USAGE[command](name)}\n\n${options(name)}\n\n${EXIT_STATUS}`;
}

export type TransferArgs =
  | { command: "help"; text: string }
  | (GlobalArgs & { command: "receive"; dir: string; port: number | undefined })
  | (GlobalArgs & {
      command: "send";
      file: string;
      to: string;
      peer: string;
      lanes: number;
      chunkBytes: number;
    });

const OPTION_SPEC = {
  ...GLOBAL_OPTIONS,
  dir: { type: "string" },
  port: { type: "string" },
  to: { type: "string" },
  peer: { type: "string" },
  lanes: { type: "string" },
  "chunk-bytes": { type: "string" },
} as const;

const COMMAND_OPTIONS: Record<CommandName, readonly string[]> = {
  receive: ["dir", "port"],
  send: ["to", "peer", "lanes", "chunk-bytes"],
};

/**
 * Parses `svc transfer <argv>` (or `svc-transfer <argv>`: `name` says which, for the usage and
 * the messages); throws a UsageError saying what is wrong.
 */
export function parseTransferArgs(
  argv: readonly string[],
  env: ArgsEnv,
  name = "svc transfer",
): TransferArgs {
  const { values, positionals } = readCommandLine(argv, OPTION_SPEC, (word) =>
    word === "receive" || word === "send" ? word : undefined,
  );
  const [first, ...operands] = positionals;
  if (first === undefined) {
    if (values.help) return { command: "help", text: transferUsage(name) };
    throw new UsageError("no command given", undefined);
  }
  if (first !== "receive" && first !== "send") {
    throw new UsageError(`unknown command: ${first}`, undefined);
  }
  const command: CommandName = first;
  if (values.help) return { command: "help", text: commandUsage(name, command) };
  onlyOptions(values, [...GLOBAL_OPTION_NAMES, ...COMMAND_OPTIONS[command]], command, name);
  let global: GlobalArgs;
  try {
    global = resolveGlobalOptions(values, env);
  } catch (error) {
    throw new UsageError((error as Error).message, command);
  }
  const fail = (message: string): never => {
    throw new UsageError(message, command);
  };
  if (command === "receive") {
    if (operands.length > 0) fail(`${name} receive takes no arguments`);
    const dir = values.dir ?? fail("--dir is required");
    if (dir === "") fail("--dir must not be empty");
    const port = values.port === undefined ? undefined : whole(values.port, "--port", 0, 65535);
    return { ...global, command, dir, port };
  }
  if (operands.length !== 1) fail(`${name} send takes one <file>`);
  const to = values.to ?? fail("--to is required");
  if (!isValidAddress(to)) fail(`--to ${JSON.stringify(to)} is not a valid address`);
  const peer = (values.peer ?? fail("--peer is required")).replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(peer) || !URL.canParse(peer)) {
    fail(`--peer must be an http(s) URL, not ${JSON.stringify(values.peer)}`);
  }
  return {
    ...global,
    command,
    file: operands[0] as string,
    to: normalizeAddress(to),
    peer,
    lanes:
      values.lanes === undefined ? DEFAULT_LANES : whole(values.lanes, "--lanes", 1, MAX_LANES),
    chunkBytes:
      values["chunk-bytes"] === undefined
        ? DEFAULT_CHUNK_BYTES
        : whole(values["chunk-bytes"], "--chunk-bytes", 1, MAX_CHUNK_BYTES),
  };

  function whole(raw: string, what: string, min: number, max: number): number {
    const value = /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(value >= min && value <= max)) {
      fail(`${what} must be a whole number from ${min} to ${max}, not ${raw}`);
    }
    return value;
  }
}
