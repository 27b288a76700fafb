import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";

/**
 * A registry of its own per server (so that several run in one process), with the process
 * metrics, `svc_requests_total{route,status}`, and factories for the server's other metrics.
 */
export function createMetricsRegistry() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "svc_" });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  return {
    registry,
    counter,
    gauge,
    requests: counter("svc_requests_total", "HTTP requests by route pattern and status", [
      "route",
      "status",
    ]),
  };
}

export type MetricsRegistry = ReturnType<typeof createMetricsRegistry>;
