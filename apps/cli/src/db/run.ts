import { join } from "node:path";
import { MoveRefused, moveEmbeddedDatabase } from "@svc/db";
import { type Program, readCommandLine, UsageError } from "../command-line.js";
import { EXIT } from "../exit.js";
import { ServerTablesMissing, serverTables } from "./server-tables.js";

/** The prekey server's KT key files in its SVC_DATA_DIR, which the database does not hold. */
const KT_KEY_FILE = "kt-signing-key";
const KT_VRF_KEY_FILE = "kt-vrf-key";
const VAPID_KEY_FILE = "push-vapid-key";

/** The usage of `svc db` (name "svc db") or of its alias `svc-db`. */
export const dbUsage = (
  name: string,
) => `usage: ${name} move [--from <data dir>] [--to <postgres URL>] [--json]
       ${name} --help

Moves the prekey server's embedded database (PGlite, under <data dir>/pglite) into an empty
PostgreSQL database: migrates the target, copies every table in one transaction, checks each
table's row count, commits. Stop the server first. The source is only read (after being migrated
to this version, as starting the server on it would).
  --from   the server's SVC_DATA_DIR (default $SVC_DATA_DIR, else ./data)
  --to     the target (default $DATABASE_URL)
  --json   one JSON object on stdout; an error as {"error":"<code>","message":"…"} on stderr

The server's keys are not in the database: the server on PostgreSQL needs the same KT signing and
VRF keys, as SVC_KT_SIGNING_KEY and SVC_KT_VRF_KEY or as <data dir>/${KT_KEY_FILE} and
<data dir>/${KT_VRF_KEY_FILE}, and the same VAPID key (SVC_PUSH_VAPID_KEY or
<data dir>/${VAPID_KEY_FILE}), or every stored push subscription stops working.

exit status: 0 moved, 1 failed (nothing committed; also when the prekey server's tables,
             @svc/server-schema, are not installed beside svc), 2 usage error,
             3 refused (no embedded database or still open, target not empty, row counts
               differ; nothing committed)`;

export interface DbCliIo {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  env: Record<string, string | undefined>;
}

/** `svc db <args>` (or `svc-db <args>`: `program` says which); resolves to the exit status. */
export async function runDbCli(
  program: Program,
  argv: readonly string[],
  io: DbCliIo,
): Promise<number> {
  let args: ReturnType<typeof parseDbArgs>;
  try {
    args = parseDbArgs(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`${error.message}\n${dbUsage(program.name)}`);
    return EXIT.usage;
  }
  if (args === "help") {
    io.stdout(dbUsage(program.name));
    return EXIT.ok;
  }
  const to = redacted(args.to);
  const problem = (code: string, message: string) =>
    io.stderr(
      args.json ? JSON.stringify({ error: code, message }) : `${program.tool}: error: ${message}`,
    );
  try {
    const report = await moveEmbeddedDatabase({
      dataDir: args.from,
      databaseUrl: args.to,
      migrations: await serverTables(),
    });
    const rows = report.reduce((sum, table) => sum + table.rows, 0);
    if (args.json) {
      const tables = Object.fromEntries(report.map((table) => [table.table, table.rows]));
      io.stdout(JSON.stringify({ from: args.from, to, tables, rows }));
    } else {
      for (const table of report) io.stdout(`${table.table}: ${table.rows} rows`);
      io.stdout(`moved ${rows} rows in ${report.length} tables from ${args.from} to ${to}`);
      io.stdout(
        `start the server there with the same keys: SVC_KT_SIGNING_KEY, SVC_KT_VRF_KEY and SVC_PUSH_VAPID_KEY, or ${join(args.from, KT_KEY_FILE)}, ${join(args.from, KT_VRF_KEY_FILE)} and ${join(args.from, VAPID_KEY_FILE)} under its SVC_DATA_DIR`,
      );
    }
    return EXIT.ok;
  } catch (error) {
    if (error instanceof MoveRefused) {
      problem(error.code, error.message);
      return EXIT.refused;
    }
    const code = error instanceof ServerTablesMissing ? error.code : "FAILED";
    problem(code, error instanceof Error ? error.message : String(error));
    return EXIT.failure;
  }
}

function parseDbArgs(argv: readonly string[], env: DbCliIo["env"]) {
  const { values, positionals } = readCommandLine(argv, {
    from: { type: "string" },
    to: { type: "string" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return "help";
  if (positionals.length !== 1 || positionals[0] !== "move") {
    throw new UsageError("the only command is: move", undefined);
  }
  const from = values.from ?? (env.SVC_DATA_DIR || "./data");
  const to = values.to ?? env.DATABASE_URL ?? "";
  if (!/^postgres(ql)?:\/\/.+/.test(to)) {
    throw new UsageError(
      "--to (or DATABASE_URL) must be a postgres:// or postgresql:// URL",
      undefined,
    );
  }
  return { from, to, json: values.json ?? false };
}

/** The URL without its password, for output. */
const redacted = (url: string): string => url.replace(/^([^/]*\/\/[^:/@]*:)[^@/]*@/, "$1***@");
