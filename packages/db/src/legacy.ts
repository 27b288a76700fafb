import type postgres from "postgres";

/**
 * The combined migrations @svc/db applied with drizzle's migrator up to 4.7 (their SQL is kept in
 * fixtures/legacy-0008), each with its journal time: drizzle.__drizzle_migrations records that
 * time (`created_at`) for every migration it ran.
 */
const LEGACY_JOURNAL = {
  "0000_init": 1795311894969,
  "0001_inbox_server_secrets": 1795312959628,
  "0002_bridges": 1795313088943,
  "0003_kt": 1795313344117,
  "0004_prekey_queue_pk": 1795323728773,
  "0005_inbox_functions": 1795381811772,
  "0006_kt_index_map_format": 1795398335623,
  "0007_inbox_deposit_previous": 1795401201597,
  "0008_inbox_deposit_notify": 1797993201597,
} as const;

export type LegacyTag = keyof typeof LEGACY_JOURNAL;

export const LEGACY_TAGS = Object.keys(LEGACY_JOURNAL) as LegacyTag[];

/**
 * The legacy migrations this database went through. As drizzle's migrator decided, those are all
 * that are no later than the latest one its journal records.
 */
export async function appliedLegacyTags(tx: postgres.TransactionSql): Promise<Set<LegacyTag>> {
  const [journal] = await tx<{ present: boolean }[]>`
    select to_regclass('drizzle.__drizzle_migrations') is not null as present`;
  if (!journal?.present) return new Set();
  const [last] = await tx<{ createdAt: string | null }[]>`
    select max(created_at)::text as "createdAt" from drizzle.__drizzle_migrations`;
  const latest = Number(last?.createdAt ?? Number.NEGATIVE_INFINITY);
  return new Set(LEGACY_TAGS.filter((tag) => LEGACY_JOURNAL[tag] <= latest));
}
