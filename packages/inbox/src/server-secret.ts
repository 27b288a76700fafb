import { randomBytes } from "node:crypto";
import type { Database } from "@svc/db";
import { eq } from "drizzle-orm";
import { serverSecrets } from "./schema.js";

/**
 * The named 32-byte secret shared by every instance on this database, created by whichever
 * instance asks first (a concurrent creator loses the insert and reads the winner's).
 */
export async function sharedSecret(db: Database, name: string, now: number): Promise<Uint8Array> {
  await db
    .insert(serverSecrets)
    .values({ name, secret: new Uint8Array(randomBytes(32)), createdAt: now })
    .onConflictDoNothing({ target: serverSecrets.name });
  const [row] = await db
    .select({ secret: serverSecrets.secret })
    .from(serverSecrets)
    .where(eq(serverSecrets.name, name));
  if (!row) throw new Error(`server secret ${name} vanished after insert`);
  return new Uint8Array(row.secret);
}
