import type { Ed25519Verifier } from "@svc/canonical";
import { nodeEd25519, sodiumEd25519 } from "@svc/canonical/node";
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
  const logger = options.logger ?? createLogger(config.logLevel);
  return {
    config,
    storage,
    logger,
    metrics: createMetrics(),
    events: new ServerEvents(),
    verifier: options.verifier ?? fastestVerifier(logger),
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

/** libsodium where sodium-native's prebuilt binary loads, else OpenSSL: both answer alike. */
function fastestVerifier(logger: Logger): Ed25519Verifier {
  const openssl = nodeEd25519();
  const sodium = sodiumEd25519(openssl);
  if (sodium) return sodium;
  logger.warn("sodium-native did not load; Ed25519 verifies on node:crypto at half the speed");
  return openssl;
}
