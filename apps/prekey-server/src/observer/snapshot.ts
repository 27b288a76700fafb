import { inboxBlobs, inboxRegistrations } from "@svc/inbox";
import { identities, oneTimePrekeys } from "@svc/prekeys";
import { createPushSubscriptions } from "@svc/push";
import { count, gt, sql } from "drizzle-orm";
import type { Services } from "../services.js";

export interface ObserverSources {
  /** Size and time of the latest signed tree head, when key transparency runs. */
  kt?: () => Promise<{ treeSize: number; lastSthAt: number | null }>;
  /** Addresses with a live push bridge, and open presence subscriptions, when bridges run. */
  bridges?: () => { connectedAddresses: number; presenceSubscriptions: number };
}

export const SERVICE_NAME = "svc-prekey-server";
export const SERVICE_VERSION = "4.7.0";

/** The observer snapshot: every figure read from the database or from the live metrics. */
export async function readSnapshot(services: Services, sources: ObserverSources) {
  const { config, storage, metrics } = services;
  const pushEnabled = config.inbox.enabled && config.push.enabled;
  const [ready, keys, inbox, kt, requests, rateLimited, pruneCycles, bridgesLive, push] =
    await Promise.all([
      storage.ping().then(
        () => true,
        () => false,
      ),
      keyCounts(services),
      config.inbox.enabled
        ? inboxCounts(services)
        : { registrations: 0, queuedBlobs: 0, queuedBytes: 0 },
      sources.kt ? sources.kt() : { treeSize: 0, lastSthAt: null },
      metrics.requests.get(),
      metrics.rateLimited.get(),
      metrics.pruneCycles.get(),
      metrics.bridgesLive.get(),
      pushEnabled ? pushCounts(services) : undefined,
    ]);
  const byStatus: Record<string, number> = {};
  for (const { labels, value } of requests.values) {
    const status = String(labels.status);
    byStatus[status] = (byStatus[status] ?? 0) + value;
  }
  const live = (transport: string) =>
    bridgesLive.values.find((entry) => entry.labels.transport === transport)?.value ?? 0;
  const bridgeCounts = sources.bridges?.() ?? { connectedAddresses: 0, presenceSubscriptions: 0 };
  return {
    service: SERVICE_NAME,
    version: SERVICE_VERSION,
    uptimeMs: Math.max(0, services.now() - services.startedAt),
    storage: { kind: storage.kind, ready },
    keys,
    kt: { enabled: config.kt.enabled, ...kt },
    inbox: { enabled: config.inbox.enabled, ...inbox },
    bridges: { sse: live("sse"), ws: live("ws"), poll: live("poll"), ...bridgeCounts },
    requests: { byStatus },
    rateLimited: rateLimited.values.reduce((sum, entry) => sum + entry.value, 0),
    pruneCycles: pruneCycles.values.reduce((sum, entry) => sum + entry.value, 0),
    push: push ?? { enabled: false, subscriptions: 0, sent: 0, failed: 0, coalesced: 0 },
  };
}

export type ObserverSnapshot = Awaited<ReturnType<typeof readSnapshot>>;

async function keyCounts({ storage: { db } }: Services) {
  const [[identityRow], [prekeyRow]] = await Promise.all([
    db.select({ n: count() }).from(identities),
    db.select({ n: count() }).from(oneTimePrekeys),
  ]);
  return { identities: identityRow?.n ?? 0, oneTimePreKeys: prekeyRow?.n ?? 0 };
}

async function inboxCounts({ storage: { db }, now }: Services) {
  const [[registrationRow], [blobRow]] = await Promise.all([
    db.select({ n: count() }).from(inboxRegistrations),
    db
      .select({
        n: count(),
        bytes: sql<string>`coalesce(sum(octet_length(${inboxBlobs.ciphertext})), 0)`,
      })
      .from(inboxBlobs)
      .where(gt(inboxBlobs.expiresAt, now())),
  ]);
  return {
    registrations: registrationRow?.n ?? 0,
    queuedBlobs: blobRow?.n ?? 0,
    queuedBytes: Number(blobRow?.bytes ?? 0),
  };
}

async function pushCounts({ storage: { db }, metrics }: Services) {
  const [subscriptions, wakeUps] = await Promise.all([
    createPushSubscriptions(db).count(),
    metrics.pushWakeUps.get(),
  ]);
  const outcome = (name: string) =>
    wakeUps.values.find((entry) => entry.labels.outcome === name)?.value ?? 0;
  return {
    enabled: true,
    subscriptions,
    sent: outcome("sent"),
    failed: outcome("failed"),
    coalesced: outcome("coalesced"),
  };
}
