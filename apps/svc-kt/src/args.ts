import { parseArgs } from "node:util";
import { decodeBase64, isValidAddress, normalizeAddress } from "@svc/canonical";

export const USAGE = `usage: svc-kt monitor --url <base-url> [--watch <address>]... [--interval <ms>] [--once]
                      [--log-key <base64 operator public key>] [--json]
       svc-kt --help

Follows the key-transparency log of a prekey server: checks every STH's signature, that it extends
the previous one, and that the leaves served hash to its roots; prints one line per event
("sth" for each new verified tree head, "change" for each change of a watched address): text by
default, one JSON object per line with --json.
Without --log-key the operator key is taken from GET /v1/kt/log_id on first contact.

exit status: 0 stopped (or --once done), 1 the log could not be reached (--once),
             2 usage error, 3 the log failed a check (fork, shrink, bad signature or proof)`;

export type KtArgs = { command: "help" } | MonitorArgs;

export interface MonitorArgs {
  command: "monitor";
  url: string;
  watch: string[];
  intervalMs: number;
  once: boolean;
  logKey: Uint8Array | undefined;
  json: boolean;
}

/** Parses `svc-kt <args>`; throws an Error that says what is wrong, to print above the usage. */
export function parseKtArgs(argv: readonly string[]): KtArgs {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      url: { type: "string" },
      watch: { type: "string", multiple: true },
      interval: { type: "string" },
      once: { type: "boolean" },
      "log-key": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return { command: "help" };
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
    command: "monitor",
    url: values.url,
    watch,
    intervalMs: Number(interval),
    once: values.once ?? false,
    logKey,
    json: values.json ?? false,
  };
}
