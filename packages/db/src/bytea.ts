import { customType } from "drizzle-orm/pg-core";

/** A bytea column as `Uint8Array` (postgres.js answers Buffers, which are Uint8Arrays). */
export const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});
