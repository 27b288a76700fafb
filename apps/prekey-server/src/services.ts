import type { Ed25519Verifier } from "@svc/canonical";
import type { Storage } from "@svc/db";
import { createRateLimit, type RateLimit, unlimited } from "@svc/http";
import { serverEd25519Verifier } from "@svc/http/ed25519";
import { createLogger, type Logger } from "@svc/node-kit";
import type { Config } from "./config.js";
import { ServerEvents } from "./events.js";
import { createMetrics, type Metrics } from "./metrics.js";

export type ReadinessCheck = () => Promise<boolean>;

/** What route modules are wired with. */
export interface Services {
  readonly config: Config;
  readonly storage: Storage;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly events: ServerEvents;
  readonly verifier: Ed25519Verifier;
  readonly now: () => number;
  readonly startedAt: number;
  /** Readiness of optional backends, keyed as they appear in /ready. */
  readonly readiness: Map<"inbox" | "kt", ReadinessCheck>;
  /** A per-instance limit, counted and emitted on rejection; admits all with rate limits off. */
  rateLimit(route: string, limit: string, perMinute: number): RateLimit;
  /** Registers cleanup to run, newest first, when the app closes (timers, open streams). */
  onClose(cleanup: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export interface ServiceOptions {
  logger?: Logger;
  now?: () => number;
  verifier?: Ed25519Verifier;
}

export function createServices(
  config: Config,
  storage: Storage,
  options: ServiceOptions = {},
): Services {
  const cleanups: Array<() => Promise<void> | void> = [];
  const now = options.now ?? Date.now;
  const logger = options.logger ?? createLogger(config.logLevel);
  const metrics = createMetrics();
  const events = new ServerEvents();
  return {
    config,
    storage,
    logger,
    metrics,
    events,
    verifier:
      options.verifier ??
      serverEd25519Verifier((reason) =>
        logger.warn("Ed25519 verifies on node:crypto at half the speed", { reason }),
      ),
    now,
    startedAt: now(),
    readiness: new Map(),
    rateLimit(route, limit, perMinute) {
      if (!config.rateLimit.enabled) return unlimited;
      return createRateLimit({
        route,
        limit,
        perMinute,
        now,
        onReject(rejection) {
          metrics.rateLimited.inc({ route, limit });
          events.emit("ratelimit.rejected", rejection);
        },
      });
    },
    onClose(cleanup) {
      cleanups.push(cleanup);
    },
    async close() {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    },
  };
}
