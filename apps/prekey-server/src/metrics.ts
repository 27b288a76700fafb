import { createMetricsRegistry, type MetricsRegistry } from "@svc/http";
import { Gauge } from "prom-client";

/** Seconds; fine below 10 ms, where a deposit's stages lie on a healthy server. */
const DEPOSIT_STAGE_BUCKETS = [
  0.00005, 0.0001, 0.0002, 0.0003, 0.0005, 0.00075, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.0075,
  0.01, 0.02, 0.05, 0.1, 0.25, 1,
];

/** Every metric the server exports, on a registry of its own (one per app instance). */
export function createMetrics() {
  const metrics = createMetricsRegistry();
  const { counter } = metrics;
  return {
    ...metrics,
    rateLimited: counter("svc_rate_limit_rejections_total", "Requests refused by a rate limit", [
      "route",
      "limit",
    ]),
    ktPublish: counter("svc_kt_publish_total", "Signed tree heads published"),
    ktWitness: counter(
      "svc_kt_witness_submissions_total",
      "Checkpoints sent to witnesses, by witness and outcome",
      ["witness", "outcome"],
    ),
    inboxPut: counter("svc_inbox_put_total", "Inbox deposits by outcome", ["outcome"]),
    depositStages: stagesOf(
      metrics.histogram(
        "svc_inbox_deposit_stage_seconds",
        "Time of each stage of a deposit: read (a single deposit's body read and parsed), checks (schema, signature, freshness, msgId) and store (from the store call until its transaction committed, a wait for a batch included) of each deposit the store answered, batch items included",
        ["stage"],
        DEPOSIT_STAGE_BUCKETS,
      ),
    ),
    inboxFetch: counter("svc_inbox_fetch_total", "Inbox blobs returned by fetch"),
    inboxAck: counter("svc_inbox_ack_total", "Inbox blobs acknowledged"),
    pruneCycles: counter("svc_inbox_prune_cycles_total", "Inbox expiry pruning cycles"),
    blobsPruned: counter("svc_inbox_blobs_pruned_total", "Expired inbox blobs deleted"),
    bridgeConnects: counter("svc_bridge_connects_total", "Bridge connections opened", [
      "transport",
    ]),
    bridgesLive: metrics.gauge("svc_bridges_live", "Open bridge connections by transport", [
      "transport",
    ]),
    envelopesDelivered: counter("svc_bridge_envelopes_delivered_total", "Envelopes delivered", [
      "transport",
    ]),
    kemPreKeysServed: counter(
      "svc_kem_prekeys_served_total",
      "ML-KEM prekeys served in bundles, by kind (one_time, last_resort)",
      ["kind"],
    ),
    deviceListWrites: counter(
      "svc_device_list_writes_total",
      "Device list writes by outcome (written, conflict: not the next version, invalid: refused)",
      ["outcome"],
    ),
    pushWakeUps: counter(
      "svc_push_wakeups_total",
      "Web Push wake-ups by outcome (sent, failed, coalesced, gone, dropped, refused)",
      ["outcome"],
    ),
    pushSubscriptionChanges: counter(
      "svc_push_subscription_changes_total",
      "Web Push subscriptions added, renewed (same endpoint, new keys) and removed by their address",
      ["change"],
    ),
    pushSubscriptions: sampledGauge(
      metrics.registry,
      "svc_push_subscriptions",
      "Web Push subscriptions stored over all addresses, read at a scrape at most every 5 s",
    ),
    kemPreKeysLeft: sampledGauge(
      metrics.registry,
      "svc_kem_prekeys_left",
      "One-time ML-KEM prekeys queued in the directory over all addresses, read at each scrape",
    ),
  };
}

/** The deposit histogram's series, one per stage, made once rather than looked up per deposit. */
function stagesOf(histogram: ReturnType<MetricsRegistry["histogram"]>) {
  return {
    read: histogram.labels({ stage: "read" }),
    checks: histogram.labels({ stage: "checks" }),
    store: histogram.labels({ stage: "store" }),
  };
}

/**
 * A gauge whose value is read from `sample` (once set) at each scrape. A failed read keeps the
 * last value: the metrics page stays up while the database is not.
 */
function sampledGauge(registry: MetricsRegistry["registry"], name: string, help: string) {
  let sample: (() => Promise<number>) | undefined;
  new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      if (!sample) return;
      try {
        this.set(await sample());
      } catch {
        // Kept: the last value read.
      }
    },
  });
  return {
    sampleWith(read: () => Promise<number>): void {
      sample = read;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
