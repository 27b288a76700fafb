import { bridgeHubMigrations } from "@svc/bridge-hub";
import type { PackageMigrations } from "@svc/db";
import { devicesMigrations } from "@svc/devices";
import { inboxMigrations } from "@svc/inbox";
import { ktLogMigrations } from "@svc/kt-log";
import { prekeysMigrations } from "@svc/prekeys";
import { pushMigrations } from "@svc/push";

/**
 * Every table the server uses, by owning package, in the order openStorage applies them. No
 * package's SQL refers to another's tables today; the order is that of the combined migrations
 * these replaced, and a package that comes to refer to another's must come after it.
 */
export const migrations: readonly PackageMigrations[] = [
  prekeysMigrations,
  inboxMigrations,
  ktLogMigrations,
  bridgeHubMigrations,
  devicesMigrations,
  pushMigrations,
];
