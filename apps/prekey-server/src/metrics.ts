import { createMetricsRegistry } from "@svc/http";

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
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
