import { runGroup } from "./groups.js";
import { main } from "./main.js";
import { ALIASES, type AliasName } from "./programs.js";

const GROUPS = { "svc-transfer": "transfer", "svc-kt": "kt", "svc-db": "db" } as const;

/** The binaries bin/svc-transfer.js, bin/svc-kt.js and bin/svc-db.js: svc's groups by old names. */
export function alias(name: AliasName): Promise<void> {
  return main(name, (io) => runGroup(GROUPS[name], ALIASES[name], process.argv.slice(2), io));
}
