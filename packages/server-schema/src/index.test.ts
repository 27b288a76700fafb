import type { LegacyTag, Storage } from "@svc/db";
import { executeRows } from "@svc/db";
import {
  createLegacyTestStorage,
  createTestStorage,
  describeSchema,
  hasTestPostgres,
} from "@svc/db/testing";
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { migrations } from "./index.js";

const opened: Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

// Migrating the first test database of a file is slow: pay it outside the tests' time limit.
beforeAll(async () => (await createTestStorage({ kind: "pglite", migrations })).close());

const kinds = hasTestPostgres() ? (["pglite", "postgres"] as const) : (["pglite"] as const);

/** Tables whose rows no migration after 0005 changes: they must read the same after the upgrade. */
const TABLES = [
  "identities",
  "one_time_prekeys",
  "inbox_registrations",
  "inbox_blobs",
  "server_secrets",
  "kt_leaves",
  "kt_sths",
  "bridge_instances",
  "bridge_presence",
];

/** Each package migration and the combined one it repeats. */
const EQUIVALENT: Record<string, LegacyTag> = {
  "prekeys/0000_identities": "0000_init",
  "prekeys/0001_queue_pk": "0004_prekey_queue_pk",
  "inbox/0000_registrations_blobs": "0000_init",
  "inbox/0001_server_secrets": "0001_inbox_server_secrets",
  "inbox/0002_inbox_functions": "0005_inbox_functions",
  "inbox/0003_deposit_previous": "0007_inbox_deposit_previous",
  "inbox/0004_deposit_notify": "0008_inbox_deposit_notify",
  "kt-log/0000_kt": "0003_kt",
  "kt-log/0001_index_map_format": "0006_kt_index_map_format",
  "bridge-hub/0000_bridges": "0002_bridges",
};

/** Columns the migrations since 4.7 added to the tables of TABLES. */
const ADDED_SINCE_LEGACY: Record<string, number> = { identities: 3, kt_leaves: 3 };

/** Package migrations added after 4.7: every upgraded database runs them. */
const SINCE_LEGACY = [
  "prekeys/0002_kem_prekeys",
  "kt-log/0002_kt_cosignatures",
  "kt-log/0003_kt_vrf_index",
  "kt-log/0004_kt_kem_key_hash",
  "kt-log/0005_kt_list_version",
  "devices/0000_device_lists",
  "push/0000_push_subscriptions",
  "push/0001_push_wake_due",
];

/** What the old layout held at 0005 and later: a row or two in every table. */
const FILL = `
  insert into identities values
    ('alice', '\\x01', '\\x02', 7, '\\x03', '\\x04', 10, 11);
  insert into one_time_prekeys (address, key_id, public_key) values
    ('alice', 1, '\\x05'), ('alice', 2, '\\x06');
  insert into inbox_registrations (address, signing_key, last_received_at, created_at, stored_blobs)
    values ('bob', '\\x07', 20, 12, 1);
  insert into inbox_blobs values ('bob', 'm1', '\\x08', '\\x09', 'carol', 20, 99999);
  insert into server_secrets values ('cursor', '\\x0a', 13);
  insert into kt_log (id, log_id, public_key, created_at) values (1, '\\x0b', '\\x0c', 14);
  insert into kt_leaves values (0, 'alice', '\\x0d'), (1, 'bob', '\\x0e');
  insert into kt_sths values (2, 15, '\\x0f', '\\x10', '\\x11');
  insert into bridge_instances values ('instance-a', '2031-01-01T00:00:00Z');
  insert into bridge_presence values ('instance-a', 'bob', 2);`;

async function rows(storage: Storage, table: string): Promise<string[]> {
  const found = await executeRows<{ row: string }>(
    storage.db,
    sql.raw(`select t::text as row from ${table} as t order by 1`),
  );
  return found.map(({ row }) => row);
}

describe.each(kinds)("a database @svc/db 4.7 made, on %s", (kind) => {
  it.each([
    ["0008_inbox_deposit_notify", []],
    [
      "0005_inbox_functions",
      ["inbox/0003_deposit_previous", "inbox/0004_deposit_notify", "kt-log/0001_index_map_format"],
    ],
  ] as const)(
    "through %s opens with its rows, running only the migrations it lacked (%j) and later ones",
    async (through, ran) => {
      let before: Record<string, string[]> = {};
      const upgraded = await createLegacyTestStorage({
        kind,
        through,
        migrations,
        async fill(legacy) {
          await legacy.unsafe(FILL);
          before = Object.fromEntries(
            await Promise.all(
              TABLES.map(async (table) => {
                const found = await legacy.unsafe<{ row: string }[]>(
                  `select t::text as row from ${table} as t order by 1`,
                );
                return [table, found.map(({ row }) => row)];
              }),
            ),
          );
        },
      });
      opened.push(upgraded);

      const journal = await executeRows<{ key: string; legacy_tag: string | null }>(
        upgraded.db,
        sql`select package || '/' || migration as key, legacy_tag from svc.migrations`,
      );
      const expected = [
        ...Object.entries(EQUIVALENT).map(([key, tag]) => ({
          key,
          legacy_tag: (ran as readonly string[]).includes(key) ? null : tag,
        })),
        ...SINCE_LEGACY.map((key) => ({ key, legacy_tag: null })),
      ];
      expect(journal.sort(byKey)).toEqual(expected.sort(byKey));

      for (const table of TABLES) {
        // Columns added since are nullable and last: empty in the rows kept.
        const kept = (await rows(upgraded, table)).map((row) =>
          row.replace(new RegExp(`,{${ADDED_SINCE_LEGACY[table] ?? 0}}\\)$`), ")"),
        );
        expect(kept).toEqual(before[table]);
      }
      expect(await rows(upgraded, "kt_log")).toEqual(['(1,"\\\\x0b","\\\\x0c",14,1,)']);

      const fresh = await createTestStorage({ kind, migrations });
      opened.push(fresh);
      expect(await describeSchema(upgraded.db)).toEqual(await describeSchema(fresh.db));
    },
    // Two embedded databases made and a third opened: longer than a request test.
    60_000,
  );
});

function byKey(a: { key: string }, b: { key: string }): number {
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}
