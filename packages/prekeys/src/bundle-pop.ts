import { type Database, plainBytes, preparedRows } from "@svc/db";
import type { PreKeyBundle } from "./types.js";

interface PoppedRow {
  address: string;
  signing_key: Uint8Array;
  dh_key: Uint8Array;
  signed_prekey_id: number | string | bigint;
  signed_prekey: Uint8Array;
  signed_prekey_signature: Uint8Array;
  key_id: number | string | bigint | null;
  public_key: Uint8Array | null;
}

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
  )
  select i.address, i.signing_key, i.dh_key, i.signed_prekey_id, i.signed_prekey,
    i.signed_prekey_signature, p.key_id, p.public_key
  from identities i
  left join popped p on true
  where i.address = $1`;

// The entries to delete are named by ctid: locked by this statement, they cannot move, and a
// join back on (address, id) lets the planner scan a whole queue for a handful of rows.
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
  )
  select i.address, i.signing_key, i.dh_key, i.signed_prekey_id, i.signed_prekey,
    i.signed_prekey_signature, p.key_id, p.public_key
  from identities i
  left join popped p on p.address = i.address
  where i.address in (select address from wanted)
  order by i.address, p.id`;

/**
 * The bundles for a batch of fetches (an address may repeat), in one statement: per address it
 * pops as many of the oldest queue entries as the batch asks for, skipping entries another
 * transaction holds, so no entry is ever handed out twice. Fetches of one address get its entries
 * in batch order (FIFO); those beyond the queue's end get the bundle without a one-time prekey.
 * The answer holds undefined where the address is not registered.
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
    // The last row stays to serve fetches beyond the popped entries (without a prekey).
    if (queue.length > 1) queue.shift();
    else if (row.key_id !== null) queue[0] = { ...row, key_id: null, public_key: null };
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
  return bundle;
}
