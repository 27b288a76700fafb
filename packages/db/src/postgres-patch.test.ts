import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { startPgliteThread } from "./pglite-channel.js";
import { pgliteSocket } from "./pglite-socket.js";

/**
 * patches/postgres@3.4.9.patch. postgres.js 3.4.9 reserves a transaction's connection only if,
 * when BEGIN was sent, the connection could take more queries (socket not backed up, pipeline not
 * full). Otherwise BEGIN runs on a connection still shared with other queries and the transaction
 * fails (on a pool: UNSAFE_TRANSACTION; on one connection: a TypeError in sql.begin), leaving the
 * session inside the transaction it began. The embedded database's socket backs up too: it holds
 * the writes that arrive while a statement runs.
 */
describe("postgres.js as patched", () => {
  it("reserves the connection for a transaction whose BEGIN fills the pipeline", async () => {
    const thread = await startPgliteThread();
    const sql = postgres({
      // postgres.js takes both (its README documents them; its types omit them).
      ...{ socket: () => pgliteSocket(thread, () => {}), max_pipeline: 1 },
      max: 1,
      onnotice: () => {},
    });
    try {
      await sql`create table t (n int)`;
      // Sent first and still unanswered, so BEGIN fills the connection's pipeline of one.
      const ahead = sql`select 1`.execute();
      const transaction = sql.begin(async (tx) => {
        await tx`insert into t values (1)`;
        return tx`select count(*)::int as n from t`;
      });
      await ahead;
      expect(await transaction).toEqual([{ n: 1 }]);
      expect(await sql`select count(*)::int as n from t`).toEqual([{ n: 1 }]);
    } finally {
      await sql.end({ timeout: 1 });
      await thread.close();
    }
  });
});
