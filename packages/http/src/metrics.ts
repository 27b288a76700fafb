import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/**
 * prom-client's default gauges named like counters, which `promtool check metrics` refuses
 * ("non-counter metrics should not have _total suffix"): each is the sum over the `type` label
 * of the gauge of the same name without `_total`, which stays.
 */
const GAUGES_NAMED_TOTAL = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
];

/**
 * A registry of its own per server (so that several run in one process), with the process
 * metrics, `svc_requests_total{route,status}`, and factories for the server's other metrics.
 */
export function createMetricsRegistry() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "svc_" });
  for (const name of GAUGES_NAMED_TOTAL) registry.removeSingleMetric(`svc_${name}`);
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: number[],
  ) => new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });
  return {
    registry,
    counter,
    gauge,
    histogram,
    requests: counter("svc_requests_total", "HTTP requests by route pattern and status", [
      "route",
      "status",
    ]),
  };
}

export type MetricsRegistry = ReturnType<typeof createMetricsRegistry>;
