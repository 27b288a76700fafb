import { type Database, plainBytes, preparedRows } from "@svc/db";
import type { PreKeyBundle } from "./types.js";

type Bigint = number | string | bigint;

interface PoppedRow {
  address: string;
  signing_key: Uint8Array;
  dh_key: Uint8Array;
  signed_prekey_id: Bigint;
  signed_prekey: Uint8Array;
  signed_prekey_signature: Uint8Array;
  key_id: Bigint | null;
  public_key: Uint8Array | null;
  kem_key_id: Bigint | null;
  kem_public_key: Uint8Array | null;
  kem_signature: Uint8Array | null;
  /** Null for a classic identity; then no one-time KEM prekey is ever queued either. */
  kem_key_hash: Uint8Array | null;
  /** The last-resort key, sent only with a row that popped no one-time KEM prekey. */
  kem_last_resort_key_id: Bigint | null;
  kem_last_resort_key: Uint8Array | null;
  kem_last_resort_signature: Uint8Array | null;
}

/** The identity's columns of a popped row; `p` is a row of both kinds of popped entries. */
const IDENTITY_COLUMNS = `
  i.address, i.signing_key, i.dh_key, i.signed_prekey_id, i.signed_prekey,
  i.signed_prekey_signature, sha256(i.kem_last_resort_key) as kem_key_hash,
  p.key_id, p.public_key, p.kem_key_id, p.kem_public_key, p.kem_signature,
  case when p.kem_key_id is null then i.kem_last_resort_key_id end as kem_last_resort_key_id,
  case when p.kem_key_id is null then i.kem_last_resort_key end as kem_last_resort_key,
  case when p.kem_key_id is null then i.kem_last_resort_signature end
    as kem_last_resort_signature`;

// Both queues are popped by the one statement: the EC and the KEM one-time prekey of a bundle
// leave together or not at all. Only identities with a last-resort KEM key have KEM entries.
const POP_ONE = `
  with popped as (
    delete from one_time_prekeys
    where address = $1 and id = (
      select id from one_time_prekeys
      where address = $1
      order by id
      limit 1
      for update skip locked)
    returning key_id, public_key
  ), kem_popped as (
    delete from one_time_kem_prekeys
    where address = $1 and id = (
      select id from one_time_kem_prekeys
      where address = $1
      order by id
      limit 1
      for update skip locked)
    returning key_id, public_key, signature
  ), p as (
    select e.key_id, e.public_key, k.key_id as kem_key_id, k.public_key as kem_public_key,
      k.signature as kem_signature
    from (select 1) as one
    left join popped e on true
    left join kem_popped k on true
  )
  select ${IDENTITY_COLUMNS}
  from identities i
  cross join p
  where i.address = $1`;

// The entries to delete are named by ctid: locked by this statement, they cannot move, and a
// join back on (address, id) lets the planner scan a whole queue for a handful of rows. The
// popped entries of both queues are paired by their rank in their queue (the n-th fetch of an
// address gets the n-th oldest of each), and an address whose fetches outnumber its popped pairs
// gets a last row without entries (but with the last-resort KEM key) for the fetches beyond both
// queues' ends; the others do not, sparing the answer a last-resort key no fetch of it uses.
const POP_BUNDLES = `
  with wanted as (
    select address, count(*)::int as n
    from unnest($1::text[]) as address
    group by address
  ), popped as (
    delete from one_time_prekeys
    where ctid = any(array(
      select oldest.ctid
      from wanted w cross join lateral (
        select ctid from one_time_prekeys
        where address = w.address
        order by id
        limit w.n
        for update skip locked
      ) oldest))
    returning address, id, key_id, public_key
  ), kem_popped as (
    delete from one_time_kem_prekeys
    where ctid = any(array(
      select oldest.ctid
      from wanted w cross join lateral (
        select ctid from one_time_kem_prekeys
        where address = w.address
        order by id
        limit w.n
        for update skip locked
      ) oldest))
    returning address, id, key_id, public_key, signature
  ), ranked as (
    select address, key_id, public_key, row_number() over (partition by address order by id) as n
    from popped
  ), kem_ranked as (
    select address, key_id, public_key, signature,
      row_number() over (partition by address order by id) as n
    from kem_popped
  ), paired as (
    select coalesce(e.address, k.address) as address, coalesce(e.n, k.n) as n,
      e.key_id, e.public_key, k.key_id as kem_key_id, k.public_key as kem_public_key,
      k.signature as kem_signature
    from ranked e full join kem_ranked k on k.address = e.address and k.n = e.n
  ), p as (
    select * from paired
    union all
    select w.address, null, null, null, null, null, null
    from wanted w
    where w.n > (select count(*) from paired where paired.address = w.address)
  )
  select ${IDENTITY_COLUMNS}
  from identities i
  join p on p.address = i.address
  order by i.address, p.n nulls last`;

/**
 * The bundles for a batch of fetches (an address may repeat), in one statement: per address it
 * pops as many of the oldest entries of each queue as the batch asks for, skipping entries another
 * transaction holds, so no entry is ever handed out twice. Fetches of one address get its entries
 * in batch order (FIFO); those beyond a queue's end get the bundle without a one-time prekey of
 * that kind (for KEM: with the last-resort key). The answer holds undefined where the address is
 * not registered.
 */
export async function popBundles(
  db: Database,
  addresses: readonly string[],
): Promise<Array<PreKeyBundle | undefined>> {
  // A lone fetch (the common case under light load) takes the simpler statement.
  const rows =
    addresses.length === 1
      ? await preparedRows<PoppedRow>(db, POP_ONE, addresses)
      : await preparedRows<PoppedRow>(db, POP_BUNDLES, [addresses]);

  const byAddress = new Map<string, PoppedRow[]>();
  for (const row of rows) {
    const queue = byAddress.get(row.address);
    if (queue) queue.push(row);
    else byAddress.set(row.address, [row]);
  }
  return addresses.map((address) => {
    const queue = byAddress.get(address);
    const row = queue?.[0];
    if (!row) return undefined;
    // The last row stays: it serves the last fetch, or all those beyond the popped pairs.
    if (queue.length > 1) queue.shift();
    return toBundle(row);
  });
}

function toBundle(row: PoppedRow): PreKeyBundle {
  const bundle: PreKeyBundle = {
    address: row.address,
    identitySigningKey: plainBytes(row.signing_key),
    identityDHKey: plainBytes(row.dh_key),
    signedPreKey: {
      keyId: Number(row.signed_prekey_id),
      publicKey: plainBytes(row.signed_prekey),
      signature: plainBytes(row.signed_prekey_signature),
    },
  };
  if (row.key_id !== null && row.public_key !== null) {
    bundle.oneTimePreKey = { keyId: Number(row.key_id), publicKey: plainBytes(row.public_key) };
  }
  if (row.kem_key_hash === null) return bundle;
  bundle.kemKeyHash = plainBytes(row.kem_key_hash);
  if (row.kem_key_id !== null && row.kem_public_key !== null && row.kem_signature !== null) {
    bundle.kemPreKey = {
      keyId: Number(row.kem_key_id),
      publicKey: plainBytes(row.kem_public_key),
      signature: plainBytes(row.kem_signature),
      lastResort: false,
    };
  } else if (
    row.kem_last_resort_key_id !== null &&
    row.kem_last_resort_key !== null &&
    row.kem_last_resort_signature !== null
  ) {
    bundle.kemPreKey = {
      keyId: Number(row.kem_last_resort_key_id),
      publicKey: plainBytes(row.kem_last_resort_key),
      signature: plainBytes(row.kem_last_resort_signature),
      lastResort: true,
    };
  }
  return bundle;
}
