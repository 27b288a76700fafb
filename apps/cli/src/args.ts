import { isValidAddress, normalizeAddress } from "@svc/canonical";
import { defaultHome, type HomeEnv } from "@svc/client/node";
import { LIMITS } from "@svc/protocol";
import {
  GLOBAL_OPTION_NAMES,
  GLOBAL_OPTIONS,
  onlyOptions,
  readCommandLine,
  UsageError,
} from "./command-line.js";
import { VERSION } from "./version.js";

export const DEFAULT_SERVER = "http://127.0.0.1:8080";

const EXIT_STATUS = `exit status: 0 ok, 1 failure (server refused or unreachable, key store unusable),
             2 usage error, 3 key-transparency verification failed (or the server has no log),
             a post-quantum downgrade refused, a device list that does not verify, or a link
             code refused, 4 listen timed out or no device linked in time, 5 no identity in the
             home (run init first), or init over an existing identity,
             6 the peer's identity keys changed (check, then svc trust),
             130 svc transfer send interrupted (run it again to resume), or a link's wait
             (devices link, init --link) stopped by a signal; svc transfer, svc kt and svc db
             list theirs in their --help, and docs/cli.md has the whole table`;

const OPTIONS = `options (before or after the command):
  --server <url>  the prekey server (default: $SVC_SERVER, else ${DEFAULT_SERVER})
  --home <dir>    the key store directory (default: $SVC_HOME, else $XDG_DATA_HOME/svc or
                  ~/.local/share/svc; %APPDATA%\\svc on Windows)
  --json          one JSON object per line on stdout, errors as {"error","message"} on stderr
  --no-kt         accept a server without a key-transparency log (its keys are then trusted on
                  first use only); by default such a server is refused (exit 3). A server with a
                  log is verified all the same, and so is one whose log the home has pinned
  -h, --help      this help; svc <command> --help for one command's
  --version       svc's version`;

export const USAGE = `usage: svc [options] <command> [<args>]

An end-to-end encrypted messaging client for a svc prekey server.

commands:
  init --address <address>  create an identity, register its keys and its inbox
  init --address <account>:<n> --link <code> [--timeout <seconds>]
                            a new device of an account: register it, then have the device
                            that showed <code> add it to the account's device list
  whoami                    print the address and public identity keys
  send <address> <text|->   send a text message (sets up a session on first use); - or no
                            text with stdin not a terminal: the message is read from stdin;
                            to an account with a device list: to each of its devices
  listen [--count <n>] [--timeout <seconds>] [--wait] [--drain]
                            print messages as they arrive, queued ones first, and acknowledge them
  chat <address>            a conversation in the terminal: lines typed are sent to <address>,
                            messages arriving are printed above the prompt; Ctrl-C or Ctrl-D leaves
  keys status               one-time prekeys (EC and ML-KEM) on the server and here, signed
                            prekey id
  session <address>         whether the session with <address> is post-quantum (PQXDH)
  kt verify <address>       check an address's keys against the key-transparency log
  safety-number <address>   the number to compare with <address> (in person, by phone)
  trust <address>           accept the identity keys the directory now has for <address>
  devices link [--timeout <seconds>]
                            show a code for a new device of this account, wait for it, add it
  devices list [<account>]  an account's verified device list (default: this device's account)
  devices remove <address>  take a device off this account's list: nothing sent after reaches it
  push subscribe --endpoint <url> --p256dh <key> --auth <secret>
                            have the server wake this address through a Web Push endpoint (a
                            UnifiedPush distributor's, like ntfy) when messages arrive for it
                            while nothing listens
  push unsubscribe --endpoint <url>
                            stop the wake-ups through <url>
  push vapid                the server's VAPID public key, for a distributor that asks for it

  transfer send|receive     encrypted, resumable file transfer between two identities
                            (svc transfer --help)
  kt monitor|witness        follow a key-transparency log; serve a witness that cosigns it
                            (svc kt --help)
  db move                   move the prekey server's embedded database into PostgreSQL
                            (svc db --help)

${OPTIONS}

${EXIT_STATUS}`;

export type CommandName =
  | "init"
  | "whoami"
  | "send"
  | "listen"
  | "chat"
  | "keys status"
  | "kt verify"
  | "safety-number"
  | "trust"
  | "session"
  | "devices link"
  | "devices list"
  | "devices remove"
  | "push subscribe"
  | "push unsubscribe"
  | "push vapid";

/** The most `svc send` reads from stdin. */
export const MAX_STDIN_BYTES = 64 * 1024;

const COMMAND_USAGE: Record<CommandName, string> = {
  init: `usage: svc init --address <address> [options]
       svc init --address <account>:<n> --link <code> [--timeout <seconds>] [options]

Generates an identity (Ed25519 signing key, X25519 DH key), a signed prekey, one-time prekeys, an
ML-KEM-1024 last-resort prekey and 100 one-time ML-KEM prekeys (for PQXDH), stores them in the home's key store (mode 0600) and registers the keys and an inbox for <address>.
Refuses to replace an identity the home already holds (exit 5).
With --link, the new device of an account: after registering, sends its keys with the code's MAC
to the device that showed <code> (svc devices link), waits for its approval (default 600 s,
--timeout), then checks the account's device list names it; prints that list as devices list
does. A wrong code is refused (exit 3, LINK_REFUSED); no answer in time is exit 4 (LINK_TIMEOUT).`,
  whoami: `usage: svc whoami [options]

Prints the home's address and its public identity keys (base64); exit 5 without an identity.`,
  send: `usage: svc send <address> <text> [options]
       svc send <address> - [options]        (or no <text> with stdin not a terminal)

Encrypts <text> (UTF-8) to <address> and deposits it in their inbox; the first message to an
address fetches their prekey bundle and sets up a session: post-quantum (PQXDH) when the bundle
has an ML-KEM prekey, classic X3DH when <address> registered none. A bundle left without the
ML-KEM prekey that <address>'s key-transparency leaf commits, or that an earlier bundle of the
same identity had, is refused (exit 3, PQ_DOWNGRADE) and nothing is sent. Put -- before a text that starts with -.
With -, or without <text> when stdin is not a terminal, the message is stdin (UTF-8, at most
${MAX_STDIN_BYTES / 1024} KiB, one final newline dropped). An empty message is a usage error (exit 2).
Runs beside a listen or chat from the same home: the key store is locked per operation.
To an account with a device list (alice@example.org, whose devices are alice@example.org:1,
...): the list is verified first (exit 3, DEVICE_LIST_INVALID, nothing sent, when it does not),
then the message is encrypted for each of its devices and copied to this account's other
devices; --json adds "deliveries":[{"address","msgId","copy"}].`,
  listen: `usage: svc listen [--count <n>] [--timeout <seconds>] [--wait] [--drain] [options]

Fetches what is queued in the inbox, then subscribes for new messages; prints each decrypted
message as it arrives ("<from>: <text>", or {"from","text","msgId"} with --json) and acknowledges it.
On a device whose account has a device list, --json lines are {"from","to","text","msgId"} (to:
the account it was sent to), with "sent": true on a copy of a message another device of the
account sent ("<from> (sent to <to>): <text>").
When the server goes away, says "disconnected" once, retries until it is back (then
"reconnected"), and never ends for it.
  --count <n>            exit 0 after n messages (default: run until SIGINT or SIGTERM, exit 0)
  --timeout <seconds>    exit 4 if that much time passes first (without --count: before a signal)
  --wait                 a server that cannot be reached at start is waited for (without it: exit 1)
  --drain                print what is queued, then exit 0 (alone: no --count, --timeout, --wait)`,
  chat: `usage: svc chat <address> [options]

A conversation with <address> in the terminal. Each line typed is sent to <address>; messages
arriving are printed above the prompt ("<from>: <text>"; those from other addresses too, with
their address, since each message shown is acknowledged) without breaking the line being typed.
A line says whether the session with <address> is post-quantum (PQXDH) or classic (X3DH) once
there is one, and again if a new session changes it. Ctrl-C or Ctrl-D leaves, exit 0. The server
is waited for when it cannot be reached, and a listen or send may run from the same home
meanwhile.`,
  "keys status": `usage: svc keys status [options]

Prints the address, the one-time prekeys left on the server and held here, the signed prekey id,
and the one-time ML-KEM prekeys left on the server and held here (the last-resort one not
counted). --json: {"address","oneTimePreKeysOnServer","oneTimePreKeysLocal","signedPreKeyId",
"kemPreKeysOnServer","kemPreKeysLocal"}.`,
  session: `usage: svc session <address> [options]

Says whether the session with <address> (the one in use) is post-quantum: set up with PQXDH
(X25519 and ML-KEM-1024), or with classic X3DH because <address> has no ML-KEM prekeys. Fetches
nothing. --json: {"address","postQuantum"}. With no session yet (no message sent to or received
from <address>): exit 1, NO_SESSION.`,
  "kt verify": `usage: svc kt verify <address> [options]

Fetches <address>'s prekey bundle and verifies its key-transparency proof against the log's signed
tree head; prints the tree size, the leaf index and the verified keys. Exit 3 when the proof fails.`,
  "safety-number": `usage: svc safety-number <address> [options]

Prints the safety number of this home and <address>: 60 digits computed from both identities'
keys and addresses, the same on both sides (docs/protocol.md §16). Compare it with <address> in
person or on a call: equal numbers mean nobody stands between you. Uses the keys trusted here
and fetches nothing (no one-time prekey of <address> is used up); fails when none are known
yet (after a first message, or svc trust <address>, they are). When other keys were seen and not
trusted yet, prints their number too. --json: {"address","safetyNumber","fingerprint",
"ownFingerprint"} and "changed": {"safetyNumber","fingerprint"} when other keys were seen.`,
  "devices link": `usage: svc devices link [--timeout <seconds>] [options]

On a device of an account (the first one starts the account's device list): prints a one-time
code ("code: 1-7K3M-9QX2-HT4W-PB6N"; --json: {"code","expiresAt"}), then waits for the new device
(svc init --address <account>:<n> --link <code> there). Its keys must carry the code's MAC and be
the keys its directory entry and its session have; it is then added to the list and told so, and
"linked <address> (version <n>)" printed (--json: {"linked","version"}). The code is good for
600 s (--timeout) and one device; a wrong one is refused, and after 3 the code is void (exit 3,
LINK_REFUSED). No device in time: exit 4 (LINK_TIMEOUT). Messages arriving meanwhile stay queued
for listen.`,
  "devices list": `usage: svc devices list [<account>] [options]

Fetches and verifies an account's device list (default: this device's account): each version
signed by a device of the one before, chained to the version seen last, and proved by the
key-transparency log unless there is none (--no-kt). Prints the version and each device with its
identity signing key; --json: {"account","version","devices":[{"address","identitySigningKey"}]}.
A list that does not verify is exit 3 (DEVICE_LIST_INVALID); an account without a list, exit 1.`,
  "push subscribe": `usage: svc push subscribe --endpoint <url> --p256dh <key> --auth <secret> [options]

Asks the server to wake this address through a Web Push subscription whenever messages are
deposited for it while no listen or chat holds a live connection: the server POSTs an encrypted
"wake up and fetch" (no message, no sender) to <url>. A UnifiedPush distributor (ntfy, self-hosted
or ntfy.sh) gives the three values: the endpoint URL, the user agent's P-256 public key (p256dh)
and its authentication secret (auth), both base64url. Subscribing the same endpoint again
renews its keys. Signed with this address's inbox key. Prints "subscribed <url>"; --json:
{"ok":true,"endpoint"}. The server refuses, exit 1: an endpoint that is not https or resolves to a
private, loopback or link-local address (SVC_PUSH_ENDPOINT_REFUSED), keys that are not a P-256
point and a 16-byte secret (SVC_INVALID_PUSH_SUBSCRIPTION), more than
${LIMITS.pushSubscriptionsPerAddress} subscriptions for the address (SVC_TOO_MANY_SUBSCRIPTIONS),
push turned off on the server (SVC_FEATURE_DISABLED).`,
  "push unsubscribe": `usage: svc push unsubscribe --endpoint <url> [options]

Stops the wake-ups through <url> for this address. Prints "unsubscribed", or
"no such subscription" when the address had none with that endpoint (exit 0 either way);
--json: {"ok":true,"removed":true|false}.`,
  "push vapid": `usage: svc push vapid [options]

Prints the server's VAPID public key (base64url of the uncompressed P-256 point), which signs
every wake-up it sends; some distributors and push services ask for it. Needs no identity.
--json: {"publicKey"}. A server with push off answers 404 SVC_FEATURE_DISABLED (exit 1).`,
  "devices remove": `usage: svc devices remove <address> [options]

Writes the next version of this account's device list without <address> (another device of the
account, or this one), signed by this device: nothing sent to the account afterwards reaches
<address>. Prints the new list as devices list does. Another device changing the list at the same
time is retried once, then exit 1 (DEVICE_LIST_CONFLICT).`,
  trust: `usage: svc trust <address> [options]

Accepts the identity keys the directory (KT-verified) now has for <address>, after send refused
them with exit 6 (IDENTITY_CHANGED): the next message starts a new session under them, from the
bundle fetched when the change was seen (no further one-time prekey is used up). For an address
never seen before, fetches its keys (one bundle, kept for the first message) so that the safety
number can be compared first. Check the new keys first: svc safety-number <address> shows their
number. Prints the old and the new fingerprint; --json: {"address","changed",
"previousFingerprint","fingerprint"}.`,
};

/** The full help of a command: its own text, then the options and exit codes they all share. */
export function commandUsage(command: CommandName): string {
  return `${COMMAND_USAGE[command]}\n\n${OPTIONS}\n\n${EXIT_STATUS}`;
}

export interface GlobalArgs {
  server: string;
  home: string;
  json: boolean;
  /** The client's kt option: "auto" with --no-kt, else "require". */
  kt: "require" | "auto";
}

export type CommandArgs =
  | { command: "init"; address: string }
  | { command: "init"; address: string; link: string; timeoutMs: number | undefined }
  | { command: "devices link"; timeoutMs: number | undefined }
  | { command: "devices list"; account: string | undefined }
  | { command: "devices remove"; address: string }
  | { command: "push subscribe"; endpoint: string; p256dh: string; auth: string }
  | { command: "push unsubscribe"; endpoint: string }
  | { command: "push vapid" }
  | { command: "whoami" }
  /** `text` "-", or undefined with stdin not a terminal: the message is read from stdin. */
  | { command: "send"; to: string; text: string | undefined }
  | {
      command: "listen";
      count: number | undefined;
      timeoutMs: number | undefined;
      wait: boolean;
      drain: boolean;
    }
  | { command: "chat"; address: string }
  | { command: "keys status" }
  | { command: "kt verify" | "safety-number" | "trust" | "session"; address: string };

export type SvcArgs = { command: "help"; text: string } | (GlobalArgs & CommandArgs);

export { UsageError };

export interface ArgsEnv extends HomeEnv {
  SVC_SERVER?: string | undefined;
}

const COMMAND_OPTIONS: Record<CommandName, readonly string[]> = {
  init: ["address", "link", "timeout"],
  whoami: [],
  send: [],
  listen: ["count", "timeout", "wait", "drain"],
  chat: [],
  "keys status": [],
  "kt verify": [],
  "safety-number": [],
  trust: [],
  session: [],
  "devices link": ["timeout"],
  "devices list": [],
  "devices remove": [],
  "push subscribe": ["endpoint", "p256dh", "auth"],
  "push unsubscribe": ["endpoint"],
  "push vapid": [],
};

const OPTION_SPEC = {
  ...GLOBAL_OPTIONS,
  version: { type: "boolean" },
  address: { type: "string" },
  count: { type: "string" },
  timeout: { type: "string" },
  wait: { type: "boolean" },
  drain: { type: "boolean" },
  link: { type: "string" },
  endpoint: { type: "string" },
  p256dh: { type: "string" },
  auth: { type: "string" },
} as const;

/** Parses `svc <argv>`; throws a UsageError saying what is wrong. */
export function parseSvcArgs(argv: readonly string[], env: ArgsEnv): SvcArgs {
  const { values, positionals } = parseOptions(argv);
  if (positionals.length === 0) {
    if (values.help) return { command: "help", text: USAGE };
    if (values.version) return { command: "help", text: VERSION };
    throw new UsageError("no command given", undefined);
  }
  const [command, operands] = splitCommand(positionals);
  if (values.help) return { command: "help", text: commandUsage(command) };

  onlyOptions(values, [...GLOBAL_OPTION_NAMES, ...COMMAND_OPTIONS[command]], command, "svc");
  const global = globalArgs(values, env, command);
  const expectOperands = (names: string[]) => {
    if (operands.length !== names.length) {
      const wanted = names.length === 0 ? "no arguments" : names.map((n) => `<${n}>`).join(" ");
      throw new UsageError(`svc ${command} takes ${wanted}`, command);
    }
  };
  switch (command) {
    case "init": {
      expectOperands([]);
      if (values.address === undefined) throw new UsageError("--address is required", command);
      const where = address(values.address, "--address", command);
      if (values.link === undefined) {
        if (values.timeout !== undefined)
          throw new UsageError("--timeout goes with --link", command);
        return { ...global, command, address: where };
      }
      if (!/:[^:]+$/.test(where)) {
        throw new UsageError("--link needs --address <account>:<device>", command);
      }
      return {
        ...global,
        command,
        address: where,
        link: values.link,
        timeoutMs: values.timeout === undefined ? undefined : timeoutMs(values.timeout, command),
      };
    }
    case "devices link":
      expectOperands([]);
      return {
        ...global,
        command,
        timeoutMs: values.timeout === undefined ? undefined : timeoutMs(values.timeout, command),
      };
    case "devices list":
      if (operands.length > 1) expectOperands(["account"]);
      return {
        ...global,
        command,
        account: operands[0] === undefined ? undefined : address(operands[0], "<account>", command),
      };
    case "devices remove":
      expectOperands(["address"]);
      return { ...global, command, address: address(operands[0] as string, "<address>", command) };
    case "push subscribe":
      expectOperands([]);
      return {
        ...global,
        command,
        endpoint: endpoint(values.endpoint, command),
        p256dh: base64url(values.p256dh, "--p256dh", command),
        auth: base64url(values.auth, "--auth", command),
      };
    case "push unsubscribe":
      expectOperands([]);
      return { ...global, command, endpoint: endpoint(values.endpoint, command) };
    case "send": {
      if (operands.length !== 1) expectOperands(["address", "text"]);
      const text = operands[1];
      if (text === "") throw new UsageError("the message is empty", command);
      return {
        ...global,
        command,
        to: address(operands[0] as string, "<address>", command),
        text,
      };
    }
    case "listen": {
      expectOperands([]);
      const drain = values.drain ?? false;
      if (drain && (values.count ?? values.timeout ?? values.wait) !== undefined) {
        throw new UsageError("--drain takes no --count, --timeout or --wait", command);
      }
      return {
        ...global,
        command,
        count: values.count === undefined ? undefined : count(values.count),
        timeoutMs: values.timeout === undefined ? undefined : timeoutMs(values.timeout, command),
        wait: values.wait ?? false,
        drain,
      };
    }
    case "chat":
      expectOperands(["address"]);
      return { ...global, command, address: address(operands[0] as string, "<address>", command) };
    case "kt verify":
    case "safety-number":
    case "trust":
    case "session":
      expectOperands(["address"]);
      return { ...global, command, address: address(operands[0] as string, "<address>", command) };
    default:
      expectOperands([]);
      return { ...global, command };
  }
}

/** Each command by its first word; the second word of a two-word command. */
const COMMANDS = new Map<
  string,
  { command: CommandName; second?: string; seconds?: readonly string[] }
>([
  ["init", { command: "init" }],
  ["whoami", { command: "whoami" }],
  ["send", { command: "send" }],
  ["listen", { command: "listen" }],
  ["chat", { command: "chat" }],
  ["keys", { command: "keys status", second: "status" }],
  ["kt", { command: "kt verify", second: "verify" }],
  ["safety-number", { command: "safety-number" }],
  ["trust", { command: "trust" }],
  ["session", { command: "session" }],
  ["devices", { command: "devices list", seconds: ["link", "list", "remove"] }],
  ["push", { command: "push vapid", seconds: ["subscribe", "unsubscribe", "vapid"] }],
]);

/** The command a line that failed to parse was meant for, to print the right usage. */
const parseOptions = (argv: readonly string[]) =>
  readCommandLine(argv, OPTION_SPEC, (word) => COMMANDS.get(word)?.command);

function splitCommand(positionals: string[]): [CommandName, string[]] {
  const [first, ...rest] = positionals as [string, ...string[]];
  const entry = COMMANDS.get(first);
  if (entry === undefined) throw new UsageError(`unknown command: ${first}`, undefined);
  if (entry.seconds !== undefined) {
    const second = rest[0] ?? "";
    if (!entry.seconds.includes(second)) {
      throw new UsageError(`unknown command: svc ${first} ${second}`.trim(), entry.command);
    }
    return [`${first} ${second}` as CommandName, rest.slice(1)];
  }
  if (entry.second === undefined) return [entry.command, rest];
  if (rest[0] !== entry.second) {
    throw new UsageError(`unknown command: svc ${first} ${rest[0] ?? ""}`.trim(), entry.command);
  }
  return [entry.command, rest.slice(1)];
}

function globalArgs(
  values: { server?: string; home?: string; json?: boolean; "no-kt"?: boolean },
  env: ArgsEnv,
  command: CommandName,
): GlobalArgs {
  try {
    return resolveGlobalOptions(values, env);
  } catch (error) {
    throw new UsageError((error as Error).message, command);
  }
}

/**
 * --server, --home, --json and --no-kt with their defaults from the environment, as svc and
 * svc transfer read them; throws an Error that says what is wrong.
 */
export function resolveGlobalOptions(
  values: {
    server?: string | undefined;
    home?: string | undefined;
    json?: boolean | undefined;
    "no-kt"?: boolean | undefined;
  },
  env: ArgsEnv,
): GlobalArgs {
  const server = values.server ?? (env.SVC_SERVER || DEFAULT_SERVER);
  if (!/^https?:\/\/[^/]/.test(server) || !URL.canParse(server)) {
    const from = values.server === undefined ? "$SVC_SERVER" : "--server";
    throw new Error(`${from} must be an http(s) URL, not ${JSON.stringify(server)}`);
  }
  const home = values.home ?? defaultHome(env);
  if (home === "") throw new Error("--home must not be empty");
  return {
    server: server.replace(/\/+$/, ""),
    home,
    json: values.json ?? false,
    kt: values["no-kt"] ? "auto" : "require",
  };
}

function address(raw: string, what: string, command: CommandName): string {
  if (!isValidAddress(raw)) {
    throw new UsageError(
      `${what} ${JSON.stringify(raw)} is not a valid address (a letter or digit, then letters, digits and @:_.-, at most 256 in all)`,
      command,
    );
  }
  return normalizeAddress(raw);
}

function count(raw: string): number {
  if (!/^[1-9]\d{0,8}$/.test(raw)) {
    throw new UsageError(
      `--count must be a whole number from 1 to 999999999, not ${raw}`,
      "listen",
    );
  }
  return Number(raw);
}

/** setTimeout's limit is 2^31 - 1 ms, a little under 25 days. */
const MAX_TIMEOUT_SECONDS = 2_147_483;

function timeoutMs(raw: string, command: CommandName): number {
  const seconds = /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS)) {
    throw new UsageError(
      `--timeout must be a number of seconds above 0, at most ${MAX_TIMEOUT_SECONDS}, not ${raw}`,
      command,
    );
  }
  return Math.ceil(seconds * 1000);
}

/** A push endpoint: a URL (the server decides which ones it sends to). */
function endpoint(raw: string | undefined, command: CommandName): string {
  if (raw === undefined) throw new UsageError("--endpoint <url> is required", command);
  if (!URL.canParse(raw) || raw.length > LIMITS.pushEndpointLength) {
    throw new UsageError(
      `--endpoint must be a URL of at most ${LIMITS.pushEndpointLength} characters, not ${JSON.stringify(raw)}`,
      command,
    );
  }
  return raw;
}

/** A subscription key as a distributor gives it: base64url, padded or not. */
function base64url(raw: string | undefined, what: string, command: CommandName): string {
  if (raw === undefined) throw new UsageError(`${what} is required`, command);
  if (!/^[A-Za-z0-9_-]{1,256}={0,2}$/.test(raw)) {
    throw new UsageError(`${what} must be base64url, not ${JSON.stringify(raw)}`, command);
  }
  return raw;
}
