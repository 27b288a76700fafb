import { CodedError } from "@svc/canonical";
import type { PackageMigrations } from "@svc/db";

/**
 * The prekey server's tables are not installed beside svc (a CLI installed on its own): exit 1,
 * code SERVER_TABLES_MISSING.
 */
export class ServerTablesMissing extends CodedError<"SERVER_TABLES_MISSING"> {
  override readonly name = "ServerTablesMissing";
}

/**
 * The prekey server's tables, which `svc db move` migrates both databases to. They ship with the
 * server (@svc/server-schema, an optional peer of this package), not with the CLI alone: without
 * them the move cannot begin, and says so.
 */
export async function serverTables(): Promise<readonly PackageMigrations[]> {
  try {
    return (await import("@svc/server-schema")).migrations;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new ServerTablesMissing(
      "SERVER_TABLES_MISSING",
      "svc db move needs the prekey server's tables (@svc/server-schema): run it where the server is installed",
    );
  }
}
