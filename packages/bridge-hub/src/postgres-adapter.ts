import { randomUUID } from "node:crypto";
import type { Storage } from "@svc/db";
import { createBatcher } from "@svc/node-kit";
import { and, eq, inArray, lt, notExists, sql } from "drizzle-orm";
import type { AdapterSink, BridgeAdapter, PresenceSync } from "./adapter.js";
import { parsePresenceChange } from "./presence-change.js";
import { bridgeInstances, bridgePresence } from "./schema.js";
import type { PresenceChange } from "./types.js";

export const DEPOSIT_CHANNEL = "svc_bridge_deposit";
export const PRESENCE_CHANNEL = "svc_bridge_presence";
/** An instance whose heartbeat is older than this is dead and its presence rows are reaped. */
export const DEFAULT_INSTANCE_EXPIRY_MS = 30_000;
/** Most deposit notifications sent in one statement. */
const ANNOUNCEMENTS_PER_STATEMENT = 256;
/** First key of the two-key advisory locks that serialize presence writes per address. */
const PRESENCE_LOCK_SPACE = 0x5356_4202;

export interface PostgresAdapterOptions {
  instanceExpiryMs?: number;
}

/** `Storage.listen` plus the optional (re)connect callback that postgres.js `listen` accepts. */

/**
 * Many instances on one PostgreSQL database. NOTIFY only wakes (deposit payload = address,
 * presence payload = a PresenceChange JSON); the database stays the truth. Presence is a table of
 * live bridge counts per (instance, address), with an instance heartbeat; every write of an
 * address's count holds an advisory lock on the address, so the write that makes the global
 * count cross 0<->1 is known exactly, and that instance announces it.
 */
export function postgresAdapter(
  storage: Storage,
  options: PostgresAdapterOptions = {},
): BridgeAdapter {
  const { db } = storage;
  const expirySeconds = (options.instanceExpiryMs ?? DEFAULT_INSTANCE_EXPIRY_MS) / 1000;
  let instanceId = randomUUID();
  /** Tags this adapter's deposit notifications, which it hears back and must not act on twice. */
  const origin = randomUUID();
  const unlisteners: Array<() => Promise<void>> = [];
  // A notification per deposit would be a round trip per deposit beside the deposit's own batch;
  // the ones that arrive while a statement is out leave together in the next.
  const announce = createBatcher<string, void>(
    async (addresses) => {
      const payloads = [...new Set(addresses)].map((address) => `${origin} ${address}`);
      await storage.notify(DEPOSIT_CHANNEL, payloads);
      return addresses.map(() => undefined);
    },
    { concurrency: 1, maxBatch: ANNOUNCEMENTS_PER_STATEMENT },
  );

  const register = async () => {
    await db.insert(bridgeInstances).values({ instanceId }).onConflictDoNothing();
  };

  /** Removes one row of a gone instance; a crossing when it was the address's last bridges. */
  const removeRow = (owner: string, address: string, at: number) =>
    db.transaction(async (tx) => {
      await tx.execute(
        sql`select pg_advisory_xact_lock(${PRESENCE_LOCK_SPACE}::int, hashtext(${address}))`,
      );
      const removed = await tx
        .delete(bridgePresence)
        .where(and(eq(bridgePresence.instanceId, owner), eq(bridgePresence.address, address)))
        .returning({ bridges: bridgePresence.bridges });
      if (removed.length === 0) return undefined;
      if ((await totalBridges(tx, address)) > 0) return undefined;
      const crossing: PresenceChange = { address, online: false, at };
      await tx.execute(sql`select pg_notify(${PRESENCE_CHANNEL}, ${JSON.stringify(crossing)})`);
      return crossing;
    });

  /** Rows of instances that are gone: heartbeat expired (claimed here) or never registered. */
  const reap = async (at: number): Promise<PresenceChange[]> => {
    await db
      .delete(bridgeInstances)
      .where(lt(bridgeInstances.heartbeatAt, sql`now() - make_interval(secs => ${expirySeconds})`));
    const orphans = await db
      .select({ instanceId: bridgePresence.instanceId, address: bridgePresence.address })
      .from(bridgePresence)
      .where(
        notExists(
          db
            .select({ one: sql`1` })
            .from(bridgeInstances)
            .where(eq(bridgeInstances.instanceId, bridgePresence.instanceId)),
        ),
      );
    const crossings: PresenceChange[] = [];
    for (const orphan of orphans) {
      const crossing = await removeRow(orphan.instanceId, orphan.address, at);
      if (crossing) crossings.push(crossing);
    }
    return crossings;
  };

  return {
    depositNotice: { channel: DEPOSIT_CHANNEL, prefix: `${origin} ` },

    async start(adapterSink: AdapterSink) {
      await register();
      for (const [channel, onPayload] of [
        [DEPOSIT_CHANNEL, (payload: string) => relayDeposit(adapterSink, origin, payload)],
        [PRESENCE_CHANNEL, (payload: string) => relayPresence(adapterSink, payload)],
      ] as const) {
        let listens = 0;
        const onListen = () => {
          if (listens++ > 0) adapterSink.resync();
        };
        unlisteners.push(await storage.listen(channel, onPayload, onListen));
      }
    },

    announceDeposit(address) {
      return announce(address);
    },

    syncPresence(address, bridges, at): Promise<PresenceSync> {
      const owner = instanceId;
      return db.transaction(async (tx) => {
        await tx.execute(
          sql`select pg_advisory_xact_lock(${PRESENCE_LOCK_SPACE}::int, hashtext(${address}))`,
        );
        const own = and(eq(bridgePresence.instanceId, owner), eq(bridgePresence.address, address));
        const [row] = await tx
          .select({ bridges: bridgePresence.bridges })
          .from(bridgePresence)
          .where(own);
        const previous = row?.bridges ?? 0;
        if (bridges === 0) {
          await tx.delete(bridgePresence).where(own);
        } else {
          await tx
            .insert(bridgePresence)
            .values({ instanceId: owner, address, bridges })
            .onConflictDoUpdate({
              target: [bridgePresence.instanceId, bridgePresence.address],
              set: { bridges },
            });
        }
        const after = await totalBridges(tx, address);
        const before = after - bridges + previous;
        if (before > 0 === after > 0) return {};
        const crossing: PresenceChange = { address, online: after > 0, at };
        await tx.execute(sql`select pg_notify(${PRESENCE_CHANNEL}, ${JSON.stringify(crossing)})`);
        return { crossing };
      });
    },

    async online(addresses) {
      if (addresses.length === 0) return new Set();
      const rows = await db
        .select({ address: bridgePresence.address })
        .from(bridgePresence)
        .where(inArray(bridgePresence.address, [...addresses]))
        .groupBy(bridgePresence.address)
        .having(sql`sum(${bridgePresence.bridges}) > 0`);
      return new Set(rows.map((row) => row.address));
    },

    async heartbeat(at) {
      const alive = await db
        .update(bridgeInstances)
        .set({ heartbeatAt: sql`now()` })
        .where(eq(bridgeInstances.instanceId, instanceId))
        .returning({ instanceId: bridgeInstances.instanceId });
      let reregistered = false;
      if (alive.length === 0) {
        // Another instance took us for dead and reaped our rows: come back under a new id, so
        // that a reaper still working on the old id cannot remove what we write now.
        instanceId = randomUUID();
        await register();
        reregistered = true;
      }
      return { crossings: await reap(at), reregistered };
    },

    async close() {
      for (const unlisten of unlisteners.splice(0)) await unlisten().catch(() => {});
      await db.delete(bridgeInstances).where(eq(bridgeInstances.instanceId, instanceId));
      const own = await db
        .select({ address: bridgePresence.address })
        .from(bridgePresence)
        .where(eq(bridgePresence.instanceId, instanceId));
      for (const { address } of own) await removeRow(instanceId, address, Date.now());
    },
  };
}

type Executor = Pick<Storage["db"], "select">;

async function totalBridges(tx: Executor, address: string): Promise<number> {
  const [row] = await tx
    .select({ total: sql<number>`coalesce(sum(${bridgePresence.bridges}), 0)::int` })
    .from(bridgePresence)
    .where(eq(bridgePresence.address, address));
  return Number(row?.total ?? 0);
}

/** Payload `<origin> <address>`; the announcing hub has already told its own bridges. */
function relayDeposit(sink: AdapterSink, origin: string, payload: string): void {
  const space = payload.indexOf(" ");
  if (space === -1 || payload.slice(0, space) === origin) return;
  sink.deposit(payload.slice(space + 1));
}

function relayPresence(sink: AdapterSink, payload: string): void {
  const change = parsePresenceChange(payload);
  if (change) sink.presence(change);
}
