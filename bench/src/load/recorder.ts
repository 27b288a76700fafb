import { performance } from "node:perf_hooks";
import type { Channel, PrekeyEntry } from "./population.js";

/** Requests by what they do; deliveries are timed from the deposit request to the envelope. */
export type Route =
  | "keys register"
  | "inbox register"
  | "bundle fetch"
  | "replenish"
  | "deposit"
  | "inbox fetch"
  | "ack"
  | "poll (held)"
  | "bridge open (sse)"
  | "bridge open (ws)"
  | "presence snapshot"
  | "presence feed open"
  | "prekey count"
  | `delivery (${Exclude<Channel, "fetch">})`;

/** What one route did in one phase. */
export class RouteStats {
  readonly latencies: number[] = [];
  /** Answers by status; 0 is a request that got no answer (connection error, timeout). */
  readonly statuses = new Map<number, number>();
  count = 0;
  errors = 0;
  serverErrors = 0;

  add(status: number, ms: number): void {
    this.count++;
    this.latencies.push(ms);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 200 && status < 300) return;
    this.errors++;
    if (status >= 500) this.serverErrors++;
  }
}

export interface DepositRecord {
  recipient: string;
  /** performance.now() when the request was sent. */
  sentAt: number;
  phase: string;
  /** The server answered 200 `{idempotent: false}`: it holds the blob. */
  acknowledged: boolean;
}

export interface DeliveryRecord {
  recipient: string;
  channel: Channel;
}

/** A bundle answer's key-transparency proof, with the identity keys the bundle named. */
export interface BundleProof {
  address: string;
  ktProof: unknown;
  identitySigningKey: string;
  identityDHKey: string;
}

/**
 * Everything a load run saw, for the tables and the invariants: per-phase request statistics,
 * every one-time prekey uploaded and handed out, every deposit and every delivery, every identity
 * registered and every KT proof served. Clients write to it; the checks only read it.
 */
export class Recorder {
  /** The phase that requests started now belong to. */
  phase = "setup";
  readonly routes = new Map<string, Map<Route, RouteStats>>();

  /** One-time prekeys sent in a register or replenish, by public key (answered or not). */
  readonly prekeysOffered = new Map<string, { address: string; keyId: number }>();
  /** One-time prekeys each address holds by the uploads answered 200. */
  readonly prekeysStored = new Map<string, number>();
  /** Addresses whose queue an unanswered or failed request may have changed unseen. */
  readonly uncertainQueues = new Set<string>();
  /** One-time prekeys bundle fetches returned, by public key. */
  readonly prekeysHandedOut = new Map<string, { address: string; keyId: number; times: number }>();
  /** Queue lengths read at the end (GET /v1/keys/count). */
  readonly prekeysRemaining = new Map<string, number>();

  readonly deposits = new Map<string, DepositRecord>();
  readonly deliveries = new Map<string, DeliveryRecord[]>();
  /** Blobs whose ack the server answered 200. */
  readonly acknowledgedByRecipient = new Set<string>();
  /** Blobs an inbox fetch still served after every delivery had been acknowledged. */
  readonly leftQueued: { msgId: string; recipient: string }[] = [];

  /** Identities whose first register was answered 200, by address. */
  readonly identities = new Map<string, { identitySigningKey: string; identityDHKey: string }>();
  /** Addresses whose register got no answer or a 5xx: the log may or may not hold them. */
  readonly identitiesUncertain = new Set<string>();
  readonly bundleProofs: BundleProof[] = [];
  /** Bundle answers (200) that carried no ktProof although the log is on. */
  bundlesWithoutProof = 0;

  stats(phase: string, route: Route): RouteStats {
    let byRoute = this.routes.get(phase);
    if (!byRoute) {
      byRoute = new Map();
      this.routes.set(phase, byRoute);
    }
    let stats = byRoute.get(route);
    if (!stats) {
      stats = new RouteStats();
      byRoute.set(route, stats);
    }
    return stats;
  }

  request(phase: string, route: Route, status: number, ms: number): void {
    this.stats(phase, route).add(status, ms);
  }

  prekeysUploaded(address: string, keys: readonly PrekeyEntry[], status: number): void {
    for (const { keyId, publicKey } of keys) this.prekeysOffered.set(publicKey, { address, keyId });
    if (status === 200) {
      this.prekeysStored.set(address, (this.prekeysStored.get(address) ?? 0) + keys.length);
    } else if (status === 0 || status >= 500) {
      this.uncertainQueues.add(address);
    }
  }

  prekeyHandedOut(address: string, keyId: number, publicKey: string): void {
    const seen = this.prekeysHandedOut.get(publicKey);
    if (seen) seen.times++;
    else this.prekeysHandedOut.set(publicKey, { address, keyId, times: 1 });
  }

  depositSent(msgId: string, recipient: string): void {
    this.deposits.set(msgId, {
      recipient,
      sentAt: performance.now(),
      phase: this.phase,
      acknowledged: false,
    });
  }

  depositAnswered(msgId: string, status: number, body: string): void {
    const deposit = this.deposits.get(msgId);
    if (!deposit || status !== 200) return;
    deposit.acknowledged = (JSON.parse(body) as { idempotent?: boolean }).idempotent === false;
  }

  /** An envelope reached `recipient`; push deliveries are timed from their deposit. */
  delivered(msgId: string, recipient: string, channel: Channel): void {
    let list = this.deliveries.get(msgId);
    if (!list) {
      list = [];
      this.deliveries.set(msgId, list);
    }
    list.push({ recipient, channel });
    const deposit = this.deposits.get(msgId);
    if (deposit && list.length === 1 && channel !== "fetch") {
      this.request(deposit.phase, `delivery (${channel})`, 200, performance.now() - deposit.sentAt);
    }
  }

  /** Acknowledged deposits not delivered yet. */
  undelivered(): number {
    let count = 0;
    for (const [msgId, deposit] of this.deposits) {
      if (deposit.acknowledged && !this.deliveries.has(msgId)) count++;
    }
    return count;
  }
}
