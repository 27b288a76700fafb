import type { Ed25519Verifier } from "@svc/canonical";
import { nodeEd25519 } from "@svc/canonical/node";
import type { Storage } from "@svc/db";
import type { Config } from "./config.js";
import { ServerEvents } from "./events.js";
import { createLogger, type Logger } from "./logger.js";
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
  return {
    config,
    storage,
    logger: options.logger ?? createLogger(config.logLevel),
    metrics: createMetrics(),
    events: new ServerEvents(),
    verifier: options.verifier ?? nodeEd25519(),
    now,
    startedAt: now(),
    readiness: new Map(),
    onClose(cleanup) {
      cleanups.push(cleanup);
    },
    async close() {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    },
  };
}
